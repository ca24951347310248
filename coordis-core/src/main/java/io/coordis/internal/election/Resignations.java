package io.coordis.internal.election;

import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.internal.Named;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.Replies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How one candidate gives up its terms of one {@link LeaseElection} at Redis: {@code resign.lua} deletes the leader
 * key when it still holds the candidate's term (or, for a campaign try whose answer was lost, the try's claim) and
 * announces it on the election's channel. Resignations in the background are not waited for: a failure is logged,
 * and what they would have ended expires by its TTL. Thread-safe.
 */
final class Resignations {
    private static final Logger log = LoggerFactory.getLogger(Resignations.class);

    private final Node node;
    private final Named election;
    private final String detailsKey;
    private final String channel;
    private final String id;

    /**
     * @param election names the election in failures and logs; its key is the leader key
     * @param detailsKey the election's {@code {name}:leader} key
     * @param channel the election's {@code {name}:changed} channel
     * @param id the candidate's id
     */
    Resignations(Node node, Named election, String detailsKey, String channel, String id) {
        this.node = node;
        this.election = election;
        this.detailsKey = detailsKey;
        this.channel = channel;
        this.id = id;
    }

    /** Deletes the key if it holds this candidate's {@code term}, and announces it; blocking. */
    boolean resign(long term) {
        Object reply;
        try {
            reply = node.awaitUninterruptibly(send(term), node.commandTimeout());
        } catch (CoordisException e) {
            if (e instanceof NodeUnavailableException) {
                inBackground(term); // the resignation may never have reached Redis: once more, not waited for
            }
            throw election.named(e);
        }
        boolean resigned = Replies.isOne(Replies.list(reply, 1, LeaseElection.RESIGN, node.address()));
        log.info("'{}' resigned leadership of '{}' (term {}){}", id, election.name(), term,
                resigned ? "" : "; it had ended at Redis already");
        return resigned;
    }

    /** Resigns {@code term} without waiting. */
    void inBackground(long term) {
        inBackground(send(term), "clear ended term " + term);
    }

    /**
     * After a campaign try whose answer was lost (a timeout, a broken connection) or not waited for (an
     * interrupt): resigns the leadership that try may have won, known by its claim since its term is unknown,
     * sent at once and not waited for. Nobody else waits a TTL for a leader that does not know it leads. On a
     * connection kept after the try (an interrupt) it runs after the try; after a timeout or a broken
     * connection it goes out on the shared connection once the try's is given up (the shared one replaced, or a
     * replicated try's own dropped), when the try has run or never will (except on a server stalled past the
     * command timeout that had not read it yet: what it won then expires by its TTL).
     */
    void claimInBackground(String claim) {
        inBackground(node.eval(LeaseElection.RESIGN, List.of(election.key(), detailsKey),
                List.of(id, "", channel, claim)), "resign a campaign's lost win");
    }

    /** Sends the resignation of {@code term}; completes with resign.lua's reply. */
    CompletableFuture<Object> send(long term) {
        return node.eval(LeaseElection.RESIGN, List.of(election.key(), detailsKey),
                List.of(id, Long.toString(term), channel));
    }

    /** A resignation sent and not waited for: a failure is only logged, and what it ends expires by its TTL. */
    private void inBackground(CompletableFuture<Object> resignation, String what) {
        resignation.whenComplete((v, f) -> {
            if (f != null) {
                log.debug("could not {} of '{}' at Redis: {}", what, election.name(), f.getMessage());
            }
        });
    }
}
