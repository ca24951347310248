package io.coordis.cli.run;

import io.coordis.election.Candidacy;
import io.coordis.election.Leadership;
import io.coordis.lock.Lease;
import io.coordis.lock.MultiLease;
import io.coordis.lock.Permit;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * What a supervised command runs under: a lock's lease ({@code lock}), a semaphore's permit ({@code semaphore}) or a
 * leadership ({@code elect}).
 * {@link Supervisor} stops the command when it is lost; {@link Teardown} releases it at the end.
 */
public interface Claim {
    /** The variables a command run under a lock sees: the lock's name and its fencing number. */
    String LOCK_NAME_ENV = "COORDIS_LOCK_NAME";
    String LOCK_TOKEN_ENV = "COORDIS_LOCK_TOKEN";
    /** What a command run under several locks at once sees: each name's fencing number, {@code name=N} pairs. */
    String LOCK_TOKENS_ENV = "COORDIS_LOCK_TOKENS";
    /** The variables a command run under a semaphore's permit sees: the semaphore's name and the fencing number. */
    String SEMAPHORE_NAME_ENV = "COORDIS_SEMAPHORE_NAME";
    String PERMIT_TOKEN_ENV = "COORDIS_PERMIT_TOKEN";
    /** The variables a command run while leader sees: the election's name, the term and the candidate's id. */
    String ELECTION_NAME_ENV = "COORDIS_ELECTION_NAME";
    String ELECTION_TERM_ENV = "COORDIS_ELECTION_TERM";
    String ELECTION_ID_ENV = "COORDIS_ELECTION_ID";

    /** For messages: {@code lock 'name'}, {@code leadership of 'name'}. */
    String what();

    /** For messages: {@link #what()} with its number, {@code lock 'name' (token 7)}. */
    String describe();

    /** Variables the command sees in its environment. */
    Map<String, String> environment();

    /** Completes when the claim is lost. */
    CompletableFuture<?> lost();

    boolean isHeld();

    /**
     * Gives the claim up (release the lock, resign the leadership).
     *
     * @throws io.coordis.CoordisException when Redis cannot be reached
     */
    void release();

    /** A lock's lease as a claim: the command sees {@value #LOCK_NAME_ENV} and {@value #LOCK_TOKEN_ENV}. */
    static Claim of(Lease lease) {
        return held(lease, "lock '" + lease.name() + "'", "token " + lease.fencingToken(),
                Map.of(LOCK_NAME_ENV, lease.name(), LOCK_TOKEN_ENV, Long.toString(lease.fencingToken())));
    }

    /**
     * A multi-lock's lease as a claim: the command sees {@value #LOCK_TOKENS_ENV}, each name's {@code name=N}
     * separated by spaces, in the order the names were given.
     */
    static Claim of(MultiLease lease) {
        String tokens = lease.fencingTokens().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(" "));
        return held(lease, "locks '" + String.join("', '", lease.names()) + "'", "tokens " + tokens,
                Map.of(LOCK_TOKENS_ENV, tokens));
    }

    /** {@code lease} as a claim that is {@code what}, described with its {@code number}, showing {@code environment}. */
    private static Claim held(Lease lease, String what, String number, Map<String, String> environment) {
        return new Claim() {
            @Override
            public String what() {
                return what;
            }

            @Override
            public String describe() {
                return what + " (" + number + ")";
            }

            @Override
            public Map<String, String> environment() {
                return environment;
            }

            @Override
            public CompletableFuture<?> lost() {
                return lease.lost().toCompletableFuture();
            }

            @Override
            public boolean isHeld() {
                return lease.isHeld();
            }

            @Override
            public void release() {
                lease.release();
            }
        };
    }

    /** A semaphore's permit as a claim. */
    static Claim of(Permit permit) {
        return new Claim() {
            @Override
            public String what() {
                return "permit of semaphore '" + permit.name() + "'";
            }

            @Override
            public String describe() {
                return what() + " (token " + permit.fencingToken() + ")";
            }

            @Override
            public Map<String, String> environment() {
                return Map.of(SEMAPHORE_NAME_ENV, permit.name(), PERMIT_TOKEN_ENV,
                        Long.toString(permit.fencingToken()));
            }

            @Override
            public CompletableFuture<?> lost() {
                return permit.lost().toCompletableFuture();
            }

            @Override
            public boolean isHeld() {
                return permit.isHeld();
            }

            @Override
            public void release() {
                permit.release();
            }
        };
    }

    /**
     * A leadership of {@code candidacy} as a claim: lost only when it is lost, not when {@link #release()} resigns it;
     * released, the candidacy is closed too.
     */
    static Claim of(Leadership leadership, Candidacy candidacy) {
        return new Claim() {
            @Override
            public String what() {
                return "leadership of '" + leadership.name() + "'";
            }

            @Override
            public String describe() {
                return what() + " (term " + leadership.term() + ")";
            }

            @Override
            public Map<String, String> environment() {
                return Map.of(ELECTION_NAME_ENV, leadership.name(), ELECTION_TERM_ENV,
                        Long.toString(leadership.term()), ELECTION_ID_ENV, leadership.candidateId());
            }

            @Override
            public CompletableFuture<?> lost() {
                return leadership.lost().toCompletableFuture();
            }

            @Override
            public boolean isHeld() {
                return leadership.isHeld();
            }

            @Override
            public void release() {
                try {
                    leadership.resign();
                } finally {
                    candidacy.close(); // stops campaigning, and resigns a leadership won after this one was lost
                }
            }
        };
    }
}
