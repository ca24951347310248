package io.coordis.testkit;

import java.nio.charset.StandardCharsets;

/**
 * The hash slot of a key as Redis Cluster computes it: CRC16 of the key, or of its {@code {hash tag}} when it has a
 * non-empty one, modulo {@link RedisCluster#SLOTS}. Stateless.
 */
final class KeySlots {
    private KeySlots() {
    }

    /** See {@link RedisCluster#slot(String)}. */
    static int slot(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int start = 0;
        int end = bytes.length;
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                start = open + 1;
                end = close;
            }
        }
        return crc16(bytes, start, end) % RedisCluster.SLOTS;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /** CRC16-CCITT (XMODEM), the checksum Redis Cluster hashes keys with. */
    static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return crc & 0xffff;
    }
}
