package io.coordis;

import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.Permit;
import io.coordis.lock.ReadWriteLock;
import io.coordis.lock.Semaphore;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.ReliableQueue;
import io.coordis.signal.Signal;
import io.coordis.signal.Signals;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The blocking API from many virtual threads, for {@code VirtualThreadsIT}, which runs it on Java 21 or later with
 * two carrier threads: contended lock acquisitions, semaphore permits, read and write holds, reliable takes, signal
 * waits and campaigns, all at once (a round
 * of a twentieth of each first, unrecorded, so that classes are loaded and initialised). Prints
 * {@code DONE <counts>} when every task finished, then {@code PINNED total=N classloading=L coordis=M} from a JFR
 * recording of {@code jdk.VirtualThreadPinned} (threshold 0): pinnings while the JVM loads a class are counted apart
 * (the JVM's, and no wait), and the stack of each other pinning with a Coordis frame is printed. Compiled for
 * Java 17: virtual threads are reached by reflection. Exits when its stdin closes.
 *
 * <p>Arguments: Redis URL, key prefix ({@code -} for none), seconds allowed.
 */
public final class VirtualThreadLoad {
    private static final int LOCKERS = 400;
    private static final int TAKERS = 200;
    private static final int WAITERS = 1_000;
    private static final int CANDIDATES = 100;
    /** Semaphore acquisitions, on a semaphore of {@link #PERMITS} permits. */
    private static final int PERMIT_TAKERS = 300;
    private static final int PERMITS = 4;
    /** Read holds of one read-write lock, with writers among them. */
    private static final int READERS = 200;
    private static final int WRITERS = 20;

    private VirtualThreadLoad() {
    }

    public static void main(String[] args) throws Exception {
        Thread stdin = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // the parent's lines are not used
                }
            } catch (java.io.IOException e) {
                // the parent is gone
            }
            System.exit(3);
        });
        stdin.setDaemon(true);
        stdin.start();
        String url = args[0];
        String prefix = args[1].equals("-") ? "" : args[1];
        long seconds = Long.parseLong(args[2]);

        ExecutorService virtual = (ExecutorService) java.util.concurrent.Executors.class
                .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        Recording recording = new Recording();
        recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
        // a small round first, not recorded: the JVM pins a thread while it loads and initialises a class on first
        // use, which is the JVM's and no wait
        run(virtual, url, prefix, seconds, 20);
        recording.start();
        long start = System.nanoTime();
        String counts = run(virtual, url, prefix, seconds, 1);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("DONE ms=%d %s%n", millis, counts);
        recording.stop();
        Path file = Files.createTempFile("coordis-vt-", ".jfr");
        recording.dump(file);
        int total = 0;
        int ours = 0;
        int loading = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (!e.getEventType().getName().equals("jdk.VirtualThreadPinned")) {
                continue;
            }
            total++;
            List<RecordedFrame> frames = e.getStackTrace() == null ? List.of() : e.getStackTrace().getFrames();
            if (frames.stream().anyMatch(f -> f.getMethod().getType().getName().equals("java.lang.ClassLoader")
                    && f.getMethod().getName().equals("loadClass"))) {
                loading++; // the JVM loading a class on first use: a thread cannot unmount meanwhile, nothing waits
                continue;
            }
            boolean coordis = frames.stream().anyMatch(f -> f.getMethod().getType().getName().startsWith("io.coordis.")
                    && !f.getMethod().getType().getName().equals(VirtualThreadLoad.class.getName()));
            if (coordis) {
                ours++;
                StringBuilder stack = new StringBuilder("PINNED-STACK " + e.getDuration().toMillis() + " ms:");
                frames.stream().limit(25).forEach(f -> stack.append(" <- ").append(f.getMethod().getType().getName())
                        .append('.').append(f.getMethod().getName()).append(':').append(f.getLineNumber()));
                System.out.println(stack);
            }
        }
        Files.deleteIfExists(file);
        System.out.printf("PINNED total=%d classloading=%d coordis=%d%n", total, loading, ours);
        System.out.flush();
        virtual.shutdownNow();
        System.exit(0);
    }

    /** The load, each count divided by {@code divisor}, on fresh names; answers the counts reached. */
    private static String run(ExecutorService virtual, String url, String prefix, long seconds, int divisor)
            throws Exception {
        List<Future<?>> tasks = new ArrayList<>();
        AtomicInteger locked = new AtomicInteger();
        AtomicInteger taken = new AtomicInteger();
        AtomicInteger signalled = new AtomicInteger();
        AtomicInteger elected = new AtomicInteger();
        AtomicInteger permitted = new AtomicInteger();
        AtomicInteger shared = new AtomicInteger();
        long start = System.nanoTime();
        String tag = "vt" + divisor + ":";
        try (Coordis coordis = Coordis.builder().url(url).keyPrefix(prefix).connect()) {
            Duration wait = Duration.ofSeconds(seconds);
            DistributedLock lock = coordis.lock(tag + "lock");
            for (int i = 0; i < LOCKERS / divisor; i++) {
                tasks.add(virtual.submit(() -> {
                    try (Lease lease = lock.acquire(wait).orElseThrow()) {
                        Thread.sleep(0, 100_000);
                        locked.incrementAndGet();
                    }
                    return null;
                }));
            }
            Semaphore semaphore = coordis.semaphore(tag + "semaphore", PERMITS);
            for (int i = 0; i < PERMIT_TAKERS / divisor; i++) {
                tasks.add(virtual.submit(() -> {
                    try (Permit permit = semaphore.acquire(wait).orElseThrow()) {
                        Thread.sleep(0, 100_000);
                        permitted.incrementAndGet();
                    }
                    return null;
                }));
            }
            ReadWriteLock readWrite = coordis.readWriteLock(tag + "rw");
            for (int i = 0; i < (READERS + WRITERS) / divisor; i++) {
                DistributedLock side = i % ((READERS + WRITERS) / WRITERS) == 0 ? readWrite.writeLock()
                        : readWrite.readLock();
                tasks.add(virtual.submit(() -> {
                    try (Lease lease = side.acquire(wait).orElseThrow()) {
                        Thread.sleep(0, 100_000);
                        shared.incrementAndGet();
                    }
                    return null;
                }));
            }
            ReliableQueue queue = coordis.reliableQueue(tag + "queue");
            Consumer consumer = queue.consumer();
            for (int i = 0; i < TAKERS / divisor; i++) {
                tasks.add(virtual.submit(() -> {
                    Delivery d = consumer.take(wait).orElseThrow();
                    d.ack();
                    taken.incrementAndGet();
                    return null;
                }));
            }
            Signals signals = coordis.signals();
            for (int i = 0; i < WAITERS / divisor; i++) {
                String channel = tag + "signal:" + i;
                tasks.add(virtual.submit(() -> {
                    Optional<Signal> s = signals.await(channel, wait);
                    if (s.isPresent()) {
                        signalled.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (int i = 0; i < CANDIDATES / divisor; i++) {
                LeaderElection election = coordis.election(tag + "election",
                        ElectionOptions.defaults().withCandidateId("vt-" + i).withTtl(Duration.ofSeconds(10)));
                tasks.add(virtual.submit((Callable<Void>) () -> {
                    Leadership l = election.campaign(wait).orElseThrow();
                    elected.incrementAndGet();
                    l.resign();
                    return null;
                }));
            }
            for (int i = 0; i < TAKERS / divisor; i++) {
                queue.push("m" + i);
            }
            // a wait may subscribe after its signal went out: signal each channel until someone heard it
            for (int i = 0; i < WAITERS / divisor; i++) {
                while (signals.signal(tag + "signal:" + i, "go") == 0 && System.nanoTime() - start
                        < TimeUnit.SECONDS.toNanos(seconds)) {
                    Thread.sleep(1);
                }
            }
            try {
                for (Future<?> f : tasks) {
                    f.get(Math.max(1, TimeUnit.SECONDS.toNanos(seconds) - (System.nanoTime() - start)),
                            TimeUnit.NANOSECONDS);
                }
            } catch (java.util.concurrent.TimeoutException e) {
                System.out.printf("TIMEOUT locked=%d taken=%d signalled=%d elected=%d permitted=%d readwrite=%d%n",
                        locked.get(), taken.get(), signalled.get(), elected.get(), permitted.get(), shared.get());
                System.out.flush();
                throw e;
            }
            consumer.close();
        }
        return String.format("locked=%d taken=%d signalled=%d elected=%d permitted=%d readwrite=%d", locked.get(),
                taken.get(), signalled.get(), elected.get(), permitted.get(), shared.get());
    }
}
