package io.coordis;

/**
 * A key that Coordis needs holds a value of another type than the primitive expects (for example a list
 * where a lock's string should be). Another program uses the same name: pick another name or remove the
 * key by hand. Coordis never treats such a key as "busy".
 */
public final class WrongTypeException extends CoordisException {
    private static final long serialVersionUID = 1L;

    /** The key that holds the wrong type; null when Redis did not say which. */
    private final String key;
    /** The type the key holds; null when Redis did not say. */
    private final String actualType;

    /**
     * A key of {@code node} that holds {@code actualType} where Coordis needs another type.
     *
     * @param node       the node ({@code host:port}); null when unknown
     * @param key        the key; null when Redis did not say which
     * @param actualType the type the key holds ({@code list}, {@code hash}, ...); null when Redis did not say
     * @param message    what was expected, naming the object
     * @param cause      Redis's error; null when there is none
     */
    public WrongTypeException(String node, String key, String actualType, String message, Throwable cause) {
        super(node, message, cause);
        this.key = key;
        this.actualType = actualType;
    }

    /**
     * The key that holds the wrong type, or {@code null} when Redis did not say which.
     *
     * @return the key, or {@code null}
     */
    public String key() {
        return key;
    }

    /**
     * The type the key holds ({@code list}, {@code hash}, ...), or {@code null} when Redis did not say.
     *
     * @return the type, or {@code null}
     */
    public String actualType() {
        return actualType;
    }
}
