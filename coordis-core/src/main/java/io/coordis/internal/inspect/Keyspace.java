package io.coordis.internal.inspect;

import io.coordis.AccessDeniedException;
import io.coordis.CoordisException;
import io.coordis.WrongTypeException;
import io.coordis.inspect.Inspector;
import io.coordis.internal.redis.AdminCommands;
import io.coordis.internal.redis.RedisNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes an inspector reads and the commands every kind finds its objects with: {@code SCAN} by pattern and
 * type, subscriber counts, and reading found names one by one while leaving out those this user may not read.
 * Thread-safe: it keeps only the nodes.
 */
final class Keyspace {
    private static final long SCAN_COUNT = 1000;
    private static final Logger LOG = LoggerFactory.getLogger(Inspector.class);

    private final List<RedisNode> nodes;

    Keyspace(List<RedisNode> nodes) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("at least one Redis node is needed");
        }
        this.nodes = List.copyOf(nodes);
    }

    List<RedisNode> nodes() {
        return nodes;
    }

    /** The node elections, queues, semaphores and signals live on. */
    RedisNode first() {
        return nodes.get(0);
    }

    /** Every key of {@code type} matching {@code match} on {@code node}, walked with {@code SCAN}. */
    List<String> scan(RedisNode node, String match, String type) throws InterruptedException {
        Set<String> keys = new LinkedHashSet<>();
        String cursor = "0";
        do {
            AdminCommands.KeyPage page = await(node, node.admin().scan(cursor, match, type, SCAN_COUNT));
            keys.addAll(page.keys());
            cursor = page.cursor();
        } while (!cursor.equals("0"));
        return List.copyOf(keys);
    }

    /** Subscribers per channel: summed over every node ({@code allNodes}), or on the first node. */
    Map<String, Long> numsub(List<String> channels, boolean allNodes) throws InterruptedException {
        Map<String, Long> counts = new HashMap<>();
        for (RedisNode node : allNodes ? nodes : nodes.subList(0, 1)) {
            try {
                await(node, node.admin().pubsubNumsub(channels)).forEach((k, v) -> counts.merge(k, v, Long::sum));
            } catch (CoordisException e) {
                if (nodes.size() == 1) {
                    throw e;
                }
            }
        }
        return counts;
    }

    /** How one object is read by name on a node. */
    interface Read<S> {
        Optional<S> read(RedisNode node, String name) throws InterruptedException;
    }

    /**
     * Reads each of {@code names} on the first node for a listing of {@code kind}: names this user may not read,
     * and names that hold another Redis type, are left out (logged at debug).
     */
    <S> List<S> readEach(List<String> names, String kind, Read<S> read) throws InterruptedException {
        List<S> states = new ArrayList<>();
        for (String name : names) {
            try {
                read.read(first(), name).ifPresent(states::add);
            } catch (AccessDeniedException e) {
                if (e.reason() != AccessDeniedException.Reason.KEY) {
                    throw e; // a command this user may not run is a setup error, never an empty listing
                }
                LOG.debug("listing {}: '{}' left out, this user may not read it", kind, name);
            } catch (WrongTypeException e) {
                LOG.debug("listing {}: '{}' left out, its name holds another type", kind, name);
            }
        }
        return states;
    }

    static <T> T await(RedisNode node, CompletableFuture<T> future) throws InterruptedException {
        return node.await(future, node.commandTimeout());
    }

    static WrongTypeException wrongType(String node, String key, String actual, String wanted) {
        String what = switch (actual) {
            case "election" -> "is an election";
            case "lock" -> "is a lock";
            default -> "holds a " + actual;
        };
        return new WrongTypeException(node, key, actual, "key '" + key + "' " + what + ", not "
                + (wanted.equals("election") ? "an " : "a ") + wanted, null);
    }
}
