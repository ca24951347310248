package io.coordis.testkit;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RespTest {

    /** Skips one reply of {@code replies} and answers what is left unread. */
    private static String afterOne(String replies) throws IOException {
        ByteArrayInputStream in = new ByteArrayInputStream(replies.getBytes(StandardCharsets.UTF_8));
        Resp.skipOne(in);
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void skipsExactlyOneReplyOfEachKindAndLeavesTheNextOne() throws IOException {
        assertThat(afterOne("+OK\r\n:1\r\n")).isEqualTo(":1\r\n");
        assertThat(afterOne("-ERR no\r\n+OK\r\n")).isEqualTo("+OK\r\n");
        assertThat(afterOne(":42\r\n:0\r\n")).isEqualTo(":0\r\n");
        assertThat(afterOne("$5\r\nab\r\nc\r\n:0\r\n")).as("CRLF inside a bulk string").isEqualTo(":0\r\n");
        assertThat(afterOne("$-1\r\n:0\r\n")).isEqualTo(":0\r\n");
        assertThat(afterOne("*-1\r\n:0\r\n")).isEqualTo(":0\r\n");
        // an acknowledgement script's reply, then the integer of the next command
        assertThat(afterOne("*2\r\n:1\r\n:0\r\n:7\r\n")).isEqualTo(":7\r\n");
        assertThat(afterOne("*2\r\n*2\r\n$1\r\na\r\n:1\r\n*0\r\n+OK\r\n")).isEqualTo("+OK\r\n");
        // RESP3: a map, a push, and an attribute before its reply
        assertThat(afterOne("%1\r\n+k\r\n:1\r\n_\r\n")).isEqualTo("_\r\n");
        assertThat(afterOne(">2\r\n+message\r\n+x\r\n#t\r\n")).isEqualTo("#t\r\n");
        assertThat(afterOne("|1\r\n+ttl\r\n:3\r\n+OK\r\n,1.5\r\n")).isEqualTo(",1.5\r\n");
    }

    @Test
    void aTruncatedReplyOrOtherBytesAreErrors() {
        assertThatThrownBy(() -> afterOne("*2\r\n:1\r\n")).isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> afterOne("hello\r\n")).isInstanceOf(IOException.class)
                .hasMessageContaining("not a RESP reply");
    }
}
