package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.DurationText;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.Order;
import io.coordis.Outcome;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.QueueStats;
import io.coordis.queue.ReliableQueue;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code coordis queue push|pop|ack|nack|requeue|stats|work}: queues on plain Redis lists. Payloads pass
 * through as bytes; {@code pop} prints the payload alone on stdout.
 */
@Command(name = "queue", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Queues on plain Redis lists: producers LPUSH, FIFO consumers take from the right.",
                "Reliable pops hold the message in a processing slot until 'ack'; unacked messages come back."},
        footer = {"", "Durations: 500ms, 30s, 1.5s, 5m, 1h.",
                "Exit status: 0 done; 1 queue empty ('pop'), or the delivery was already given back ('ack', "
                        + "'nack'); 64 usage; 65 the key holds another type; 69 Redis unavailable; 77 credentials "
                        + "refused."})
final class QueueCommand implements Callable<Integer> {
    static final String STDIN = "-";

    @ParentCommand
    CoordisCommand root;

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    QueueCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    /** The {@code queue} command with its subcommands, for {@link Main}. */
    static CommandLine create(Terminal terminal) {
        return new CommandLine(new QueueCommand(terminal))
                .addSubcommand(new Push(terminal))
                .addSubcommand(new Pop(terminal))
                .addSubcommand(new Ack(terminal))
                .addSubcommand(new Nack(terminal))
                .addSubcommand(new Requeue(terminal))
                .addSubcommand(new Stats(terminal))
                .addSubcommand(new QueueWorkCommand(terminal));
    }

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "missing queue command: use one of "
                + String.join(", ", spec.subcommands().keySet()));
    }

    Coordis connect(CommandSpec caller, RedisUrls urls) {
        return Connections.open(root.url(caller, urls), caller);
    }

    static String checkedName(CommandSpec caller, String name) {
        if (name.isEmpty()) {
            throw new ParameterException(caller.commandLine(), "queue name must not be empty");
        }
        return name;
    }

    static QueueOptions options(CommandSpec caller, boolean lifo, Integer maxSize) {
        QueueOptions o = QueueOptions.defaults().withOrder(lifo ? Order.LIFO : Order.FIFO);
        if (maxSize != null) {
            try {
                o = o.withMaxMessageBytes(maxSize);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(caller.commandLine(), "invalid --max-size: " + e.getMessage());
            }
        }
        return o;
    }

    /** {@code queue push Q MSG... | -}. */
    @Command(name = "push", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = {"Push messages at the back of queue Q (LPUSH), in order; print the queue's length.",
                    "With - instead of messages: one message per line of standard input."},
            customSynopsis = "coordis [-u URL] queue push [--max-size BYTES] Q (MSG... | -)")
    static final class Push implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "Q", description = "The queue (the list's key).")
        String name;

        @Parameters(index = "1..*", arity = "1..*", paramLabel = "MSG", description = "Messages, or - for stdin lines.")
        List<String> messages = new ArrayList<>();

        @Option(names = "--max-size", paramLabel = "BYTES",
                description = "Refuse messages larger than this, pushing none of them. Default: 1048576.")
        Integer maxSize;

        @Mixin
        RedisUrls urls = new RedisUrls();

        @ParentCommand
        QueueCommand parent;

        @Spec
        CommandSpec spec;

        private final Terminal terminal;

        Push(Terminal terminal) {
            this.terminal = terminal;
        }

        @Override
        public Integer call() throws InterruptedException {
            checkedName(spec, name);
            QueueOptions options = options(spec, false, maxSize);
            boolean fromStdin = messages.size() == 1 && messages.get(0).equals(STDIN);
            try (Coordis coordis = parent.connect(spec, urls)) {
                List<byte[]> payloads = new ArrayList<>();
                if (fromStdin) {
                    payloads = lines(terminal.in());
                } else {
                    for (String m : messages) {
                        payloads.add(m.getBytes(StandardCharsets.UTF_8));
                    }
                }
                ReliableQueue queue = coordis.reliableQueue(name, options);
                long length = payloads.isEmpty() ? queue.stats().depth() : queue.pushAll(payloads);
                terminal.output(Long.toString(length));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            return ExitCodes.OK;
        }

        /** Standard input split at {@code \n} (a {@code \r} before it is dropped too), bytes unchanged. */
        static List<byte[]> lines(InputStream in) {
            byte[] all;
            try {
                all = in.readAllBytes();
            } catch (IOException e) {
                throw new CommandFailure(ExitCodes.SOFTWARE, "cannot read messages from standard input: "
                        + e.getMessage(), e);
            }
            List<byte[]> lines = new ArrayList<>();
            int start = 0;
            for (int i = 0; i <= all.length; i++) {
                if (i == all.length || all[i] == '\n') {
                    int end = i > start && all[i - 1] == '\r' ? i - 1 : i;
                    if (i < all.length || end > start) {
                        byte[] line = new byte[end - start];
                        System.arraycopy(all, start, line, 0, line.length);
                        lines.add(line);
                    }
                    start = i + 1;
                }
            }
            return lines;
        }
    }

    /** {@code queue pop Q [--wait D] [--reliable] [-o json]}. */
    @Command(name = "pop", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = {"Take one message from queue Q and print the payload alone on stdout (exit 1 if none).",
                    "--reliable keeps it in a processing slot until 'coordis queue ack Q ID' (the id is on stderr, "
                            + "or in -o json); without an ack within --visibility it goes back to the queue."},
            customSynopsis = "coordis [-u URL] queue pop [--wait D] [--lifo] [--reliable [--visibility D]] [-o json] Q")
    static final class Pop implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "Q", description = "The queue (the list's key).")
        String name;

        @Option(names = {"-w", "--wait"}, paramLabel = "D", description = "Wait up to D for a message. Default: no wait.")
        Duration wait;

        @Option(names = "--lifo", description = "Take the newest message (from the left) instead of the oldest.")
        boolean lifo;

        @Option(names = "--reliable", description = "Hold the message until acked (at-least-once).")
        boolean reliable;

        @Option(names = "--visibility", paramLabel = "D", defaultValue = "5m",
                description = "With --reliable: how long the message stays held without an ack before it is "
                        + "given to others. Default: ${DEFAULT-VALUE}.")
        Duration visibility;

        @Option(names = {"-o", "--output"}, paramLabel = "FORMAT",
                description = "raw (default): the payload alone; json: {\"payload\", \"id\", \"attempts\"}.")
        String output = "raw";

        @Mixin
        RedisUrls urls = new RedisUrls();

        @ParentCommand
        QueueCommand parent;

        @Spec
        CommandSpec spec;

        private final Terminal terminal;

        Pop(Terminal terminal) {
            this.terminal = terminal;
        }

        @Override
        public Integer call() throws InterruptedException {
            checkedName(spec, name);
            if (!output.equals("raw") && !output.equals("json")) {
                throw new ParameterException(spec.commandLine(), "-o must be raw or json, was '" + output + "'");
            }
            Duration w = wait == null ? Duration.ZERO : wait;
            if (w.isNegative()) {
                throw new ParameterException(spec.commandLine(), "--wait must not be negative");
            }
            QueueOptions options = options(spec, lifo, null);
            if (reliable) {
                try {
                    options = options.withHeartbeatTtl(visibility).withSlots(1);
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), "invalid --visibility: " + e.getMessage());
                }
            }
            Budget budget = Budget.of(w);
            try (Coordis coordis = Connections.open(List.of(parent.root.url(spec, urls)), spec, w)) {
                w = budget.left(); // what connecting left of the wait
                if (!reliable) {
                    Optional<byte[]> got = coordis.queue(name, options).pop(w);
                    if (got.isEmpty()) {
                        return ExitCodes.NO_SIGNAL;
                    }
                    print(got.get(), null, 0);
                    return ExitCodes.OK;
                }
                // Not closed: closing would put the message back. Its heartbeat simply expires after --visibility.
                Consumer consumer = coordis.reliableQueue(name, options).consumer();
                Optional<Delivery> d = consumer.take(w);
                if (d.isEmpty()) {
                    consumer.close();
                    return ExitCodes.NO_SIGNAL;
                }
                print(d.get().payload(), d.get().id(), d.get().attempts());
                if (output.equals("raw")) {
                    terminal.say("delivery " + d.get().id() + " (attempt " + d.get().attempts() + "); ack within "
                            + DurationText.format(visibility) + ": coordis queue ack " + name + " " + d.get().id());
                }
                return ExitCodes.OK;
            }
        }

        private void print(byte[] payload, String id, int attempts) {
            if (output.equals("raw")) {
                terminal.out().writeBytes(payload);
                terminal.out().write('\n');
                terminal.out().flush();
                return;
            }
            Map<String, Object> doc = new LinkedHashMap<>();
            String text = utf8(payload);
            if (text != null) {
                doc.put("payload", text);
            } else {
                doc.put("payload_base64", Base64.getEncoder().encodeToString(payload));
            }
            if (id != null) {
                doc.put("id", id);
                doc.put("attempts", attempts);
            }
            terminal.output(Json.write(doc));
        }

        private static String utf8(byte[] bytes) {
            try {
                return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException e) {
                return null;
            }
        }
    }

    /** {@code queue ack Q ID}. */
    @Command(name = "ack", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Acknowledge the delivery ID of queue Q (from 'pop --reliable'): the message is done.")
    static final class Ack implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "Q")
        String name;

        @Parameters(index = "1", paramLabel = "ID", description = "The delivery id.")
        String id;

        @Mixin
        RedisUrls urls = new RedisUrls();

        @ParentCommand
        QueueCommand parent;

        @Spec
        CommandSpec spec;

        private final Terminal terminal;

        Ack(Terminal terminal) {
            this.terminal = terminal;
        }

        @Override
        public Integer call() throws InterruptedException {
            checkedName(spec, name);
            try (Coordis coordis = parent.connect(spec, urls)) {
                return report(terminal, coordis.reliableQueue(name).ack(id), id);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
    }

    /** {@code queue nack Q ID [--delay D]}. */
    @Command(name = "nack", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Give the delivery ID of queue Q back for redelivery (dead letter after --max-attempts "
                    + "failed deliveries).")
    static final class Nack implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "Q")
        String name;

        @Parameters(index = "1", paramLabel = "ID", description = "The delivery id.")
        String id;

        @Option(names = "--delay", paramLabel = "D", description = "Redeliver only after D. Default: at once.")
        Duration delay = Duration.ZERO;

        @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "5",
                description = "Dead-letter the message once it failed N times. Default: ${DEFAULT-VALUE}.")
        int maxAttempts;

        @Option(names = "--lifo", description = "The queue is consumed newest first (pop --lifo): give the message "
                + "back at the left end, where LIFO consumers take.")
        boolean lifo;

        @Mixin
        RedisUrls urls = new RedisUrls();

        @ParentCommand
        QueueCommand parent;

        @Spec
        CommandSpec spec;

        private final Terminal terminal;

        Nack(Terminal terminal) {
            this.terminal = terminal;
        }

        @Override
        public Integer call() throws InterruptedException {
            checkedName(spec, name);
            try (Coordis coordis = parent.connect(spec, urls)) {
                ReliableQueue q = coordis.reliableQueue(name, options(spec, lifo, null).withMaxAttempts(maxAttempts));
                return report(terminal, q.nack(id, delay), id);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
    }

    static int report(Terminal terminal, Outcome outcome, String id) {
        String word = outcome.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
        terminal.output(word);
        if (outcome == Outcome.GONE) {
            terminal.say("delivery " + id + " is no longer held: it was given back (its holder's heartbeat or "
                    + "--visibility expired) and will be, or was, delivered again");
            return ExitCodes.NO_SIGNAL;
        }
        return ExitCodes.OK;
    }

    /** {@code queue requeue Q --stale|--dead}. */
    @Command(name = "requeue", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = {"--stale: put back the messages of consumers whose heartbeat expired, and due delayed "
                    + "retries. --dead: move dead letters back to the queue. Prints how many."},
            customSynopsis = "coordis [-u URL] queue requeue (--stale [--lifo] [--max-attempts N] | --dead [--max N]) Q")
    static final class Requeue implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "Q")
        String name;

        @Option(names = "--stale", description = "Recover messages held by dead consumers.")
        boolean stale;

        @Option(names = "--dead", description = "Requeue dead letters.")
        boolean dead;

        @Option(names = "--max", paramLabel = "N", description = "With --dead: at most N. Default: all.")
        Integer max;

        @Option(names = "--max-attempts", paramLabel = "N",
                description = "With --stale: dead-letter a recovered message once it failed N times, as the queue's "
                        + "workers do (queue work --max-attempts). Default: 5.")
        Integer maxAttempts;

        @Option(names = "--lifo", description = "With --stale: the queue is consumed newest first (pop --lifo); put "
                + "recovered messages back at the left end, where LIFO consumers take next.")
        boolean lifo;

        @Mixin
        RedisUrls urls = new RedisUrls();

        @ParentCommand
        QueueCommand parent;

        @Spec
        CommandSpec spec;

        private final Terminal terminal;

        Requeue(Terminal terminal) {
            this.terminal = terminal;
        }

        @Override
        public Integer call() throws InterruptedException {
            checkedName(spec, name);
            if (stale == dead) {
                throw new ParameterException(spec.commandLine(), "give exactly one of --stale and --dead");
            }
            if (max != null && (max < 1 || stale)) {
                throw new ParameterException(spec.commandLine(), "--max goes with --dead and must be at least 1");
            }
            if ((maxAttempts != null || lifo) && !stale) {
                throw new ParameterException(spec.commandLine(), "--max-attempts and --lifo go with --stale");
            }
            QueueOptions options = options(spec, lifo, null);
            if (maxAttempts != null) {
                try {
                    options = options.withMaxAttempts(maxAttempts);
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), "invalid --max-attempts: " + e.getMessage());
                }
            }
            try (Coordis coordis = parent.connect(spec, urls)) {
                ReliableQueue q = coordis.reliableQueue(name, options);
                long moved = 0;
                if (stale) {
                    moved = q.sweep();
                } else {
                    long limit = max == null ? Long.MAX_VALUE : max;
                    while (moved < limit) {
                        int n = q.requeueDead((int) Math.min(10_000, limit - moved));
                        moved += n;
                        if (n == 0) {
                            break;
                        }
                    }
                }
                terminal.output(Long.toString(moved));
            }
            return ExitCodes.OK;
        }
    }

    /** {@code queue stats Q [-o json]}. */
    @Command(name = "stats", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Show depth, in-flight messages per consumer, age of the oldest message, dead letters.")
    static final class Stats implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "Q")
        String name;

        @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", description = "text (default) or json.")
        String output = "text";

        @Mixin
        RedisUrls urls = new RedisUrls();

        @ParentCommand
        QueueCommand parent;

        @Spec
        CommandSpec spec;

        private final Terminal terminal;

        Stats(Terminal terminal) {
            this.terminal = terminal;
        }

        @Override
        public Integer call() throws InterruptedException {
            checkedName(spec, name);
            if (!output.equals("text") && !output.equals("json")) {
                throw new ParameterException(spec.commandLine(), "-o must be text or json, was '" + output + "'");
            }
            try (Coordis coordis = parent.connect(spec, urls)) {
                QueueStats s = coordis.reliableQueue(name).stats();
                terminal.output(output.equals("json") ? json(s) : text(s));
            }
            return ExitCodes.OK;
        }

        static String text(QueueStats s) {
            StringBuilder b = new StringBuilder();
            b.append("queue ").append(s.queue()).append('\n');
            b.append("depth ").append(s.depth()).append('\n');
            b.append("oldest ").append(s.oldestAge().map(DurationText::format).orElse("unknown")).append('\n');
            b.append("in-flight ").append(s.inFlight()).append('\n');
            b.append("delayed ").append(s.delayed()).append('\n');
            b.append("dead ").append(s.deadLetters()).append('\n');
            b.append("settled ").append(s.settled()).append('\n');
            for (QueueStats.ConsumerStats c : s.consumers()) {
                b.append("consumer ").append(c.id()).append(c.alive() ? " alive" : " dead").append(" in-flight ")
                        .append(c.inFlight()).append(" last-heartbeat ").append(c.lastHeartbeat()).append('\n');
            }
            return b.substring(0, b.length() - 1);
        }

        static String json(QueueStats s) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("queue", s.queue());
            doc.put("depth", s.depth());
            doc.put("oldest_ms", s.oldestAge());
            doc.put("in_flight", s.inFlight());
            doc.put("delayed", s.delayed());
            doc.put("dead", s.deadLetters());
            doc.put("settled", s.settled());
            List<Object> consumers = new ArrayList<>();
            for (QueueStats.ConsumerStats c : s.consumers()) {
                Map<String, Object> o = new LinkedHashMap<>();
                o.put("id", c.id());
                o.put("alive", c.alive());
                o.put("in_flight", c.inFlight());
                o.put("last_heartbeat", c.lastHeartbeat().toString());
                consumers.add(o);
            }
            doc.put("consumers", consumers);
            return Json.write(doc);
        }
    }
}
