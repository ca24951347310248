package io.coordis.testkit.fault;

import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Namespaces are host-wide and outlive a JVM that is killed: a new one must not land on a subnet that is
 * already routed elsewhere, or its server's traffic goes to the other link and looks refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NetworkNamespaceIT {
    @BeforeEach
    void needsNamespaces() {
        NetworkNamespace.requiredInCi("network namespaces");
    }

    @Test
    void aSubnetAnotherInterfaceUsesIsNotReused() throws Exception {
        int taken = NetworkNamespace.pickSubnet(NetworkNamespace.subnetsInUse(), 123);
        String other = "cdvtest" + ProcessHandle.current().pid() % 10_000 + "a"; // a link that is not ours
        sh("ip", "link", "add", other, "type", "veth", "peer", "name", other.replace('a', 'b'));
        try {
            sh("ip", "addr", "add", "10.213." + taken + ".1/30", "dev", other);
            sh("ip", "link", "set", other, "up");
            try (NetworkNamespace ns = NetworkNamespace.create(901, taken)) {
                assertThat(ns.address()).doesNotStartWith("10.213." + taken + ".");
                assertReachable(ns);
            }
        } finally {
            sh("ip", "link", "del", other);
        }
    }

    @Test
    void aNamespaceLeftByADeadJvmIsDeletedAndItsSubnetServesAgain() throws Exception {
        int subnet = NetworkNamespace.pickSubnet(NetworkNamespace.subnetsInUse(), 77);
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        String tag = gone.pid() + "x1";
        String leftover = "coordis-" + tag;
        sh("ip", "netns", "add", leftover);
        try {
            sh("ip", "link", "add", "cdv" + tag + "o", "type", "veth", "peer", "name", "cdv" + tag + "i");
            sh("ip", "link", "set", "cdv" + tag + "i", "netns", leftover);
            sh("ip", "addr", "add", "10.213." + subnet + ".1/30", "dev", "cdv" + tag + "o");
            sh("ip", "link", "set", "cdv" + tag + "o", "up");
            try (NetworkNamespace ns = NetworkNamespace.create(902, subnet)) {
                assertThat(sh("ip", "netns", "list")).doesNotContain(leftover + " ");
                assertThat(sh("ip", "-o", "link", "show")).doesNotContain("cdv" + tag + "o");
                assertReachable(ns);
            }
        } finally {
            shQuietly("ip", "link", "del", "cdv" + tag + "o");
            shQuietly("ip", "netns", "del", leftover);
        }
    }

    @Test
    void aLiveProcessesNamespaceIsLeftAlone() throws Exception {
        int subnet = NetworkNamespace.pickSubnet(NetworkNamespace.subnetsInUse(), 200);
        try (NetworkNamespace mine = NetworkNamespace.create(903, subnet);
             NetworkNamespace next = NetworkNamespace.create(904, subnet)) {
            assertThat(sh("ip", "netns", "list")).contains(mine.name());
            assertThat(next.address()).isNotEqualTo(mine.address());
            assertReachable(mine);
            assertReachable(next);
        }
    }

    private static void assertReachable(NetworkNamespace ns) {
        try (RedisServer server = RedisServer.builder().namespace(ns).start();
             RespClient c = RespClient.connect(server.host(), server.port(), Duration.ofSeconds(2))) {
            assertThat(server.host()).isEqualTo(ns.address());
            assertThat(c.command("PING")).isEqualTo("PONG");
        }
    }

    private static String sh(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(String.join(" ", command) + ": " + out).isZero();
        return out;
    }

    private static void shQuietly(String... command) {
        try {
            new ProcessBuilder(command).redirectErrorStream(true).start().waitFor();
        } catch (IOException | InterruptedException ignored) {
            // best effort
        }
    }
}
