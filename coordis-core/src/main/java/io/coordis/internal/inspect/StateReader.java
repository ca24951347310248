package io.coordis.internal.inspect;

import io.coordis.WrongTypeException;
import io.coordis.inspect.Glob;
import io.coordis.inspect.ObjectKind;
import io.coordis.inspect.ObjectState;

import java.util.List;
import java.util.Optional;
import java.util.SortedSet;

/**
 * One kind of object as the inspector finds and reads it: where its names are found (the scan pattern and type,
 * or the channels), how one object is read (its script or commands), and the state record it answers. Each kind
 * has one, registered with {@link ScanningInspector}, which lists any kind the same way: find, then read what was
 * found. Implementations are thread-safe.
 *
 * @param <S> the kind's state record
 */
interface StateReader<S extends ObjectState> {
    /** The kind this reads. */
    ObjectKind kind();

    /** The names that may be objects of this kind and match {@code glob}, in order. */
    SortedSet<String> find(Glob glob) throws InterruptedException;

    /**
     * Reads the names {@link #find} found, for a listing: names that turn out not to be of this kind (or to be
     * free, or empty) and names this user may not read are left out.
     */
    List<S> readFound(List<String> names) throws InterruptedException;

    /**
     * Reads the object {@code name}, asked for by name.
     *
     * @return empty when nothing is known under the name
     * @throws WrongTypeException when the name holds another kind of object
     */
    Optional<S> read(String name) throws InterruptedException;
}
