package io.coordis.internal;

import java.net.InetAddress;

/** Default holder id of this process: {@code user@host:pid}. */
public final class Hosts {
    private static volatile String processId;

    private Hosts() {
    }

    public static String processId() {
        String id = processId;
        if (id == null) {
            String user = System.getProperty("user.name", "unknown");
            String host = System.getenv("HOSTNAME");
            if (host == null || host.isBlank()) {
                try {
                    host = InetAddress.getLocalHost().getHostName();
                } catch (Exception e) {
                    host = "unknown-host";
                }
            }
            id = user + "@" + host + ":" + ProcessHandle.current().pid();
            processId = id;
        }
        return id;
    }
}
