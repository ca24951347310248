package io.coordis;

/**
 * A key that Coordis needs holds a value of another type than the primitive expects (for example a list
 * where a lock's string should be). Another program uses the same name: pick another name or remove the
 * key by hand. Coordis never treats such a key as "busy".
 */
public final class WrongTypeException extends CoordisException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final String actualType;

    public WrongTypeException(String node, String key, String actualType, String message, Throwable cause) {
        super(node, message, cause);
        this.key = key;
        this.actualType = actualType;
    }

    /** The key that holds the wrong type, or {@code null} when Redis did not say which. */
    public String key() {
        return key;
    }

    /** The type the key holds ({@code list}, {@code hash}, ...), or {@code null} when Redis did not say. */
    public String actualType() {
        return actualType;
    }
}
