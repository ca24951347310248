package io.coordis.bench;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.redisson.Redisson;
import org.redisson.RedissonMultiLock;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Redisson locks with default options (watchdog renewal every 10 s of a 30 s lease): {@link RLock} on one
 * server; over several masters either {@link RedissonMultiLock} (every master must grant) or the deprecated
 * {@link RedissonRedLock} (a majority must grant). The masters' clients share one set of Netty event loops,
 * as Coordis shares its own, so neither side pays for per-node threads on a small machine.
 */
final class RedissonLocking implements Locking {
    /** How several masters are combined. */
    enum Combine { MULTI, RED }

    private final List<RedissonClient> clients = new ArrayList<>();
    private final EventLoopGroup loops;
    private final Combine combine;
    private final Map<String, RLock> locks = new ConcurrentHashMap<>();

    RedissonLocking(List<String> uris, Combine combine) {
        this.combine = combine;
        this.loops = uris.size() > 1 ? new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory()) : null;
        for (String uri : uris) {
            clients.add(Redisson.create(config(uri, loops)));
        }
    }

    static Config config(String uri, EventLoopGroup loops) {
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        if (loops != null) {
            config.setEventLoopGroup(loops);
        }
        config.useSingleServer().setAddress(uri);
        return config;
    }

    private RLock of(String name) {
        return locks.computeIfAbsent(name, n -> {
            if (clients.size() == 1) {
                return clients.get(0).getLock(n);
            }
            RLock[] each = clients.stream().map(c -> c.getLock(n)).toArray(RLock[]::new);
            return combine == Combine.MULTI ? new RedissonMultiLock(each) : redLock(each);
        });
    }

    @SuppressWarnings("deprecation")
    private static RLock redLock(RLock[] each) {
        return new RedissonRedLock(each);
    }

    @Override
    public Object tryLock(String name) {
        RLock lock = of(name);
        return lock.tryLock() ? lock : null;
    }

    @Override
    public Object lock(String name) {
        RLock lock = of(name);
        lock.lock();
        return lock;
    }

    @Override
    public void unlock(Object handle) {
        ((RLock) handle).unlock();
    }

    @Override
    public void close() {
        for (RedissonClient c : clients) {
            c.shutdown();
        }
        if (loops != null) {
            loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
