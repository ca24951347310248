package io.coordis.internal.doctor;

import io.coordis.doctor.Finding;
import io.coordis.internal.redis.Namespace;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The doctor's check that an ACL user may touch the keys and channels under the client's key prefix. */
class PrefixFindingTest {
    private static final String AT = "127.0.0.1:6379";

    @Test
    void noPrefixNoFinding() {
        assertThat(AclCheck.prefixFinding(AT, "app", Namespace.NONE, List.of(), List.of())).isEmpty();
    }

    @Test
    void thePrefixAndItsDerivedKeysAndChannelsAreEnough() {
        Finding f = AclCheck.prefixFinding(AT, "app", Namespace.of("billing:"), List.of("~billing:*", "~{billing:*"),
                List.of("&billing:*", "&{billing:*")).orElseThrow();
        assertThat(f.severity()).isEqualTo(Finding.Severity.OK);
        assertThat(f.topic()).isEqualTo("acl-prefix");
        assertThat(AclCheck.prefixFinding(AT, "admin", Namespace.of("billing:"), List.of("~*"), List.of("&*")).orElseThrow()
                .severity()).isEqualTo(Finding.Severity.OK);
        assertThat(AclCheck.prefixFinding(AT, "app", Namespace.of("billing:"), List.of("%RW~billing:*", "~{billing:*"),
                List.of("&billing:*", "&{billing:*")).orElseThrow().severity()).isEqualTo(Finding.Severity.OK);
    }

    @Test
    void whatIsMissingIsNamedAndTheFixAddsExactlyThat() {
        Finding f = AclCheck.prefixFinding(AT, "app", Namespace.of("billing:"), List.of("~billing:*"), List.of("&billing:*"))
                .orElseThrow();
        assertThat(f.severity()).isEqualTo(Finding.Severity.FAIL);
        assertThat(f.message()).contains("'app'", "'billing:'", "missing ~{billing:* &{billing:*");
        assertThat(f.fix()).isEqualTo("ACL SETUSER app ~{billing:* &{billing:*");

        Finding other = AclCheck.prefixFinding(AT, "app", Namespace.of("billing:"), List.of("~app:*", "~{app:*"),
                List.of("&app:*", "&{app:*")).orElseThrow();
        assertThat(other.fix()).isEqualTo("ACL SETUSER app ~billing:* ~{billing:* &billing:* &{billing:*");
    }

    @Test
    void readOnlyKeysAreNotEnough() {
        Finding f = AclCheck.prefixFinding(AT, "app", Namespace.of("billing:"), List.of("%R~billing:*", "~{billing:*"),
                List.of("&billing:*", "&{billing:*")).orElseThrow();
        assertThat(f.severity()).isEqualTo(Finding.Severity.FAIL);
        assertThat(f.fix()).isEqualTo("ACL SETUSER app ~billing:*");
    }
}
