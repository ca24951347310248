package io.coordis.cli.queue;

import io.coordis.Coordis;
import io.coordis.cli.support.CommandFailure;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code queue push Q MSG... | -}. */
@Command(name = "push", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Push messages at the back of queue Q (LPUSH), in order; print the queue's length.",
                "With - instead of messages: one message per line of standard input."},
        customSynopsis = "coordis [-u URL] queue push [--max-size BYTES] Q (MSG... | -)")
final class PushCommand implements Callable<Integer> {
    /** In place of messages: read them from standard input, one per line. */
    static final String STDIN = "-";

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "MSG", description = "Messages, or - for stdin lines.")
    List<String> messages = new ArrayList<>();

    @Option(names = "--max-size", paramLabel = "BYTES",
            description = "Refuse messages larger than this, pushing none of them. Default: 1048576.")
    Integer maxSize;

    @Mixin
    QueueTarget queue = new QueueTarget();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    PushCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws InterruptedException {
        String name = queue.name();
        QueueOptions options = QueueCommand.options(spec, false, maxSize);
        boolean fromStdin = messages.size() == 1 && messages.get(0).equals(STDIN);
        try (Coordis coordis = queue.connect()) {
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
