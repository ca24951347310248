package io.coordis.cli.support;

import io.coordis.AccessDeniedException;
import io.coordis.CommandRejectedException;
import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.WrongTypeException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Which exit status each kind of failure gets, and how an unexpected one is reported; without Redis. */
class ExitCodesTest {

    @Test
    void unexpectedFailuresAreInternalErrors70() {
        assertThat(ExitCodes.SOFTWARE).isEqualTo(70);
        assertThat(ExitCodes.of(new IllegalStateException("a bug"))).isEqualTo(70);
        assertThat(ExitCodes.of(new NullPointerException())).isEqualTo(70);
        assertThat(ExitCodes.of(new UncheckedIOException(new java.io.IOException("disk gone")))).isEqualTo(70);
        assertThat(ExitCodes.of(new CommandRejectedException("h:1", "OOM command not allowed", null))).isEqualTo(70);
        assertThat(ExitCodes.of(new CoordisException("h:1", "something else", null))).isEqualTo(70);
    }

    @Test
    void knownFailuresKeepTheirOwnStatus() {
        assertThat(ExitCodes.of(new NodeUnavailableException("h:1", "refused", null))).isEqualTo(69);
        assertThat(ExitCodes.of(new AccessDeniedException("h:1", "NOPERM", null))).isEqualTo(77);
        assertThat(ExitCodes.of(new WrongTypeException("h:1", "k", "list", "WRONGTYPE", null))).isEqualTo(65);
        assertThat(ExitCodes.of(new CommandFailure(ExitCodes.LOCK_LOST, "lost"))).isEqualTo(75);
    }

    @Test
    void anUnexpectedFailureIsOneLineSaying70AndWhereToLook() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Terminal terminal = new Terminal(new ByteArrayInputStream(new byte[0]), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
        ErrorReporter reporter = new ErrorReporter(terminal, new GlobalOptions(terminal));
        int status = reporter.handleExecutionException(new IllegalStateException("counter went backwards\nmore"),
                null, null);
        assertThat(status).isEqualTo(70);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("coordis: internal error: IllegalStateException: "
                + "counter went backwards\n(run with --debug to see where it happened)\n");
    }

    @Test
    void anArgumentTheLibraryRefusesIsAUsageError64WithItsMessage() {
        IllegalArgumentException tooLong = new IllegalArgumentException("name is 2000 bytes of UTF-8, over the limit of 1024");
        assertThat(ExitCodes.of(tooLong)).isEqualTo(64);
        assertThat(ErrorReporter.describe(tooLong)).isEqualTo("name is 2000 bytes of UTF-8, over the limit of 1024 (see --help)");
    }
}
