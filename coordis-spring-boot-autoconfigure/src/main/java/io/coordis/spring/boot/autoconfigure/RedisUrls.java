package io.coordis.spring.boot.autoconfigure;

import java.util.List;

/**
 * The URLs the client connects to and where they came from, for messages: {@code coordis.urls},
 * {@code spring.data.redis.*} or the development server.
 *
 * @param urls   one URL, or the masters for Redlock
 * @param source the property (or thing) that gave them
 */
record RedisUrls(List<String> urls, String source) {
    RedisUrls {
        urls = List.copyOf(urls);
    }
}
