package io.coordis.spring;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The README's {@code @RateLimited} example, compiled with the module's tests and called by {@code RateLimitedIT}. */
public class RateLimitedExample {
    private final List<String> sent = new CopyOnWriteArrayList<>();

    @RateLimited(name = "api:search", limit = "10/1m", key = "#user")   // 10 a minute per user, across instances
    public List<String> search(String user, String query) {
        return List.of(user + " searched " + query);
    }

    @RateLimited(name = "mailer", limit = "5/1s", whenLimited = WhenBusy.WAIT, maxWait = "10s")
    public void send(String mail) {                                        // waits for its turn, up to 10 s
        sent.add(mail);
    }

    public List<String> sent() {
        return List.copyOf(sent);
    }
}
