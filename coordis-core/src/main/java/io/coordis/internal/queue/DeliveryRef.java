package io.coordis.internal.queue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A delivery's identity: consumer id, slot index, delivery number; printed as {@code consumer/slot/number}. */
record DeliveryRef(String consumer, int slot, long number) {
    private static final Pattern FORMAT = Pattern.compile("([0-9a-f]{6,64})/(\\d{1,4})/(\\d{1,18})");

    static DeliveryRef parse(String id) {
        Matcher m = FORMAT.matcher(id == null ? "" : id.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + id + "' is not a delivery id: expected CONSUMER/SLOT/NUMBER as "
                    + "printed by a reliable take (e.g. 3f9a0c21b7d4/0/17)");
        }
        long n = Long.parseLong(m.group(3));
        if (n < 1) {
            throw new IllegalArgumentException("delivery number in '" + id + "' must be at least 1");
        }
        return new DeliveryRef(m.group(1), Integer.parseInt(m.group(2)), n);
    }

    @Override
    public String toString() {
        return consumer + "/" + slot + "/" + number;
    }
}
