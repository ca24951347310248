package io.coordis.spring;

import io.coordis.CoordisException;
import io.coordis.DurationText;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.Outcome;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One {@link CoordisListener} method's consumer: {@code concurrency} threads taking from one Coordis consumer,
 * each running the method for one message at a time and settling it by the method's outcome.
 */
final class QueueListener {
    private static final Logger log = LoggerFactory.getLogger(QueueListener.class);
    /** How long one take blocks; a stop wakes idle takers at once, so this only bounds one Redis call. */
    private static final Duration TAKE = Duration.ofSeconds(2);
    private static final Duration MAX_BACKOFF = Duration.ofMinutes(5);

    private final Object bean;
    private final Method method;
    private final String description;
    private final String queueName;
    private final QueueOptions options;
    private final int concurrency;
    private final Duration backoff;
    private final List<Worker> workers = new ArrayList<>();
    private volatile Consumer consumer;
    private volatile boolean running;

    QueueListener(Object bean, Method method, String queueName, QueueOptions options, int concurrency,
                  Duration backoff) {
        this.bean = bean;
        this.method = method;
        this.description = Attributes.describe(method);
        this.queueName = queueName;
        this.options = options;
        this.concurrency = concurrency;
        this.backoff = backoff;
    }

    void start(Attributes attributes) {
        ReliableQueue queue = attributes.coordis().reliableQueue(queueName, options);
        try {
            consumer = queue.consumer();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the consumer of queue '" + queueName + "'", e);
        }
        running = true;
        synchronized (workers) {
            for (int i = 0; i < concurrency; i++) {
                Worker w = new Worker();
                Thread t = new Thread(w, "coordis-listener-" + queueName + "-" + i);
                w.thread = t;
                workers.add(w);
                t.start();
            }
        }
        log.info("{} consumes queue '{}' with {} thread(s) as consumer {}", description, queueName, concurrency,
                consumer.id());
    }

    /**
     * Stops taking, waits up to {@code timeout} for the messages in hand, interrupts what still runs, and closes
     * the consumer, which puts any unsettled message back in the queue.
     */
    void stop(Duration timeout) {
        running = false;
        List<Worker> all;
        synchronized (workers) {
            all = new ArrayList<>(workers);
            workers.clear();
        }
        all.forEach(Worker::wakeIfIdle);
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Worker w : all) {
            try {
                w.thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (Worker w : all) {
            if (w.thread.isAlive()) {
                log.warn("{} did not finish its message within {}; interrupting it, the message goes back to queue '{}'",
                        description, DurationText.format(timeout), queueName);
                w.thread.interrupt();
            }
        }
        Consumer c = consumer;
        if (c != null) {
            c.close();
        }
    }

    private final class Worker implements Runnable {
        volatile Thread thread;
        private boolean taking;

        @Override
        public void run() {
            while (true) {
                synchronized (this) {
                    if (!running) {
                        return;
                    }
                    taking = true;
                }
                Optional<Delivery> taken;
                try {
                    taken = consumer.take(TAKE);
                } catch (InterruptedException e) {
                    return; // stopping: a message moved meanwhile is put back by the consumer's close
                } catch (CoordisException e) {
                    log.warn("cannot take from queue '{}': {}", queueName, e.getMessage());
                    taken = Optional.empty();
                    pause();
                } finally {
                    synchronized (this) {
                        taking = false;
                        if (!running) {
                            Thread.interrupted(); // the stop's wake-up, not meant for the message in hand
                        }
                    }
                }
                taken.ifPresent(this::process);
            }
        }

        synchronized void wakeIfIdle() {
            if (taking && thread != null) {
                thread.interrupt();
            }
        }

        private void process(Delivery delivery) {
            Throwable failure = null;
            try {
                method.invoke(bean, argument(delivery));
            } catch (InvocationTargetException e) {
                failure = e.getCause();
            } catch (IllegalAccessException e) {
                failure = e;
            }
            try {
                if (failure == null) {
                    Outcome outcome = delivery.ack();
                    if (outcome == Outcome.GONE) {
                        log.warn("{} finished message {} of queue '{}' after it was redelivered (this consumer's "
                                + "heartbeat had expired)", description, delivery.id(), queueName);
                    }
                    return;
                }
                int attempt = delivery.attempts();
                Outcome outcome = delivery.nack(backoff(attempt));
                if (outcome == Outcome.DEAD_LETTERED) {
                    log.error("{} failed message {} of queue '{}' {} times; it is in the dead letters", description,
                            delivery.id(), queueName, attempt, failure);
                } else {
                    log.warn("{} failed message {} of queue '{}' (attempt {} of {}): {}", description, delivery.id(),
                            queueName, attempt, options.maxAttempts(), failure.toString());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the consumer's close puts the message back
            } catch (CoordisException e) {
                log.warn("cannot settle message {} of queue '{}': {}; it is delivered again", delivery.id(), queueName,
                        e.getMessage());
            }
        }

        private Object argument(Delivery delivery) {
            Class<?> type = method.getParameterTypes()[0];
            if (type == String.class) {
                return delivery.text();
            }
            if (type == byte[].class) {
                return delivery.payload();
            }
            return delivery;
        }

        private void pause() {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@code backoff} doubled with each failed delivery before this one, at most {@link #MAX_BACKOFF}. */
    Duration backoff(int attempt) {
        if (backoff.isZero()) {
            return Duration.ZERO;
        }
        Duration d = backoff;
        for (int i = 1; i < attempt && d.compareTo(MAX_BACKOFF) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : d;
    }
}
