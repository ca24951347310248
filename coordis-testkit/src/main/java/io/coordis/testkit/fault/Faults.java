package io.coordis.testkit.fault;

import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisServer;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The built-in {@link Nemesis.Fault}s. Each marks itself armed before it does any harm, so that its heal
 * also undoes a fault applied in part (a signal sent but not confirmed, some firewall rules installed), and
 * heals nothing it did not apply.
 */
final class Faults {
    private Faults() {
    }

    /**
     * kill -9; healed by a restart on the same port, directory and options. The restart kills again first
     * and waits for the process to be gone: a kill cut short by an interrupt can leave it dying but not yet
     * reaped, which looks running.
     */
    static Nemesis.Fault killRestart(RedisServer s) {
        return new Armed(s.address()) {
            @Override
            void harm(Duration hold) {
                s.kill();
            }

            @Override
            void undo() {
                s.restart(Duration.ZERO);
            }
        };
    }

    /** SIGSTOP; healed by SIGCONT. */
    static Nemesis.Fault pause(RedisServer s) {
        return new Armed(s.address()) {
            @Override
            void harm(Duration hold) {
                s.pause();
            }

            @Override
            void undo() {
                if (s.isPaused()) {
                    s.resume();
                }
            }
        };
    }

    /**
     * {@code CLIENT PAUSE} for the hold. Nothing lifts it early: while a pause of every client is on, Redis
     * holds back every command of every client, {@code CLIENT UNPAUSE} included. So healing waits until the
     * pause has run out (at most the hold) and then until the server answers a PING, which it holds back
     * until then too.
     */
    static Nemesis.Fault clientPause(RedisServer s) {
        return new Armed(s.address()) {
            private volatile long deadline;

            @Override
            void harm(Duration hold) {
                deadline = System.nanoTime() + hold.toNanos();
                s.command("CLIENT", "PAUSE", Long.toString(Math.max(1, hold.toMillis())));
            }

            @Override
            void undo() {
                long left = deadline - System.nanoTime();
                try {
                    if (left > 0) {
                        TimeUnit.NANOSECONDS.sleep(left);
                    }
                    s.command("PING");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException ignored) {
                    // the server is gone: no pause left to wait for
                }
            }
        };
    }

    /** A delay drawn from {@code delays} on every chunk through the proxy; healed by passing everything again. */
    static Nemesis.Fault latency(FaultProxy p, Supplier<Duration> delays) {
        return new Armed(p.address()) {
            @Override
            void harm(Duration hold) {
                p.latency(delays.get());
            }

            @Override
            void undo() {
                p.pass();
            }
        };
    }

    /**
     * The next reply through the proxy is discarded (whichever connection it is on), as a reply lost on the
     * way back; healed by passing everything again (a reply not yet dropped then is not).
     */
    static Nemesis.Fault lostReply(FaultProxy p) {
        return new Armed(p.address()) {
            @Override
            void harm(Duration hold) {
                p.dropNextReply();
            }

            @Override
            void undo() {
                p.pass();
            }
        };
    }

    /** Nothing through the proxy; healed by passing again and resetting the connections it held. */
    static Nemesis.Fault blackhole(FaultProxy p) {
        return new Armed(p.address()) {
            @Override
            void harm(Duration hold) {
                p.blackhole();
            }

            @Override
            void undo() {
                p.pass().resetAll();
            }
        };
    }

    /** nftables rules dropping the namespace's traffic; healed by removing them. */
    static Nemesis.Fault partition(NetworkNamespace ns) {
        return new Armed(ns.toString()) {
            @Override
            void harm(Duration hold) {
                ns.partition();
            }

            @Override
            void undo() {
                ns.heal();
            }
        };
    }

    /** SIGSTOP of one of {@code pids} (drawn from {@code random}); healed by SIGCONT. Skipped when none runs. */
    static Nemesis.Fault stopClient(Supplier<List<Long>> pids, Random random) {
        return new Nemesis.Fault() {
            private volatile Long stopped;

            @Override
            public String apply(Duration hold) {
                List<Long> running = pids.get();
                if (running.isEmpty()) {
                    return null;
                }
                long pid = running.get(random.nextInt(running.size()));
                stopped = pid;
                Nemesis.signal("STOP", pid);
                return "pid " + pid;
            }

            @Override
            public void heal() {
                Long pid = stopped;
                if (pid != null) {
                    Nemesis.signal("CONT", pid);
                    stopped = null;
                }
            }
        };
    }

    /** A fault on one named target that heals only after it was (at least in part) applied. */
    private abstract static class Armed implements Nemesis.Fault {
        private final String target;
        private volatile boolean armed;

        Armed(String target) {
            this.target = target;
        }

        abstract void harm(Duration hold);

        abstract void undo();

        @Override
        public final String apply(Duration hold) {
            armed = true;
            harm(hold);
            return target;
        }

        @Override
        public final void heal() {
            if (armed) {
                undo();
                armed = false;
            }
        }
    }
}
