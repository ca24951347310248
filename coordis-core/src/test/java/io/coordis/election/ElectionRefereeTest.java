package io.coordis.election;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The referee must catch what the election tests rely on it to catch (a deliberately broken history). */
class ElectionRefereeTest {

    @Test
    void acceptsACleanHistory() throws Exception {
        try (ElectionReferee referee = new ElectionReferee();
             RefereeClient a = new RefereeClient(referee.port(), "a");
             RefereeClient b = new RefereeClient(referee.port(), "b")) {
            assertThat(a.send("ELECTED", 1)).isTrue();
            assertThat(a.send("WRITE", 1)).isTrue();
            assertThat(a.send("WRITE", 1)).isTrue();
            assertThat(b.send("ELECTED", 2)).isTrue();
            assertThat(b.send("WRITE", 2)).isTrue();
            assertThat(referee.violations()).isEmpty();
        }
    }

    @Test
    void catchesTwoLeadersInOneTermAndTermsGoingBackwards() throws Exception {
        try (ElectionReferee referee = new ElectionReferee();
             RefereeClient a = new RefereeClient(referee.port(), "a");
             RefereeClient b = new RefereeClient(referee.port(), "b")) {
            a.send("ELECTED", 5);
            b.send("ELECTED", 5);
            a.send("ELECTED", 4);
            assertThat(referee.violations()).containsExactly("term 5 has two leaders: a and b",
                    "term 5 of b elected after term 5", "term 4 of a elected after term 5");
        }
    }

    @Test
    void theFencedResourceRefusesStaleWritesAndAnotherWriterInTheSameTerm() throws Exception {
        try (ElectionReferee referee = new ElectionReferee();
             RefereeClient a = new RefereeClient(referee.port(), "a");
             RefereeClient b = new RefereeClient(referee.port(), "b")) {
            assertThat(a.send("WRITE", 3)).isTrue();
            assertThat(b.send("WRITE", 4)).isTrue();
            assertThat(a.send("WRITE", 3)).as("stale term").isFalse();
            assertThat(a.send("WRITE", 4)).as("same term, another writer").isFalse();
            assertThat(referee.violations()).as("refused writes are no violation").isEmpty();
            assertThat(referee.events("WRITE")).extracting(ElectionReferee.Event::accepted)
                    .containsExactly(true, true, false, false);
        }
    }
}
