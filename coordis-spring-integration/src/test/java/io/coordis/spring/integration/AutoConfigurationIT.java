package io.coordis.spring.integration;

import io.coordis.Coordis;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import io.coordis.spring.boot.autoconfigure.CoordisAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.MessageBuilder;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.messaging.MessageChannel;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The auto-configuration in real application contexts: what it adds beside a Coordis bean, and when it backs off. */
class AutoConfigurationIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static Coordis coordis;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CoordisIntegrationAutoConfiguration.class));

    @BeforeAll
    static void connect(RedisServer server) {
        coordis = Clients.connect(server.uri());
    }

    @AfterAll
    static void close() {
        coordis.close();
    }

    @Test
    void isListedForSpringBoot() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
                .contains(CoordisIntegrationAutoConfiguration.class.getName());
    }

    @Test
    void aCoordisBeanBringsTheRegistryUnderTheConfiguredKey(RedisServer server) {
        runner.withBean(Coordis.class, () -> coordis, bd -> bd.setDestroyMethodName(""))
                .withPropertyValues("coordis.integration.registry-key=billing")
                .run(ctx -> {
                    assertThat(ctx).hasSingleBean(CoordisLockRegistry.class).doesNotHaveBean(CoordisLeaderInitiator.class);
                    Lock lock = ctx.getBean(CoordisLockRegistry.class).obtain("run");
                    lock.lock();
                    try {
                        assertThat(server.command("EXISTS", Prefixed.key("billing:run"))).isEqualTo(1L);
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void aCandidateBeanBringsTheInitiator() {
        runner.withBean(Coordis.class, () -> coordis, bd -> bd.setDestroyMethodName(""))
                .withBean(DefaultCandidate.class, () -> new DefaultCandidate("auto", "auto-role"))
                .run(ctx -> {
                    assertThat(ctx).hasSingleBean(CoordisLeaderInitiator.class);
                    assertThat(ctx.getBean(CoordisLeaderInitiator.class).isRunning()).isTrue();
                });
    }

    @Test
    void theReadmeExampleBillsUnderTheLockAndLeads() {
        List<Long> fences = new CopyOnWriteArrayList<>();
        runner.withBean(Coordis.class, () -> coordis, bd -> bd.setDestroyMethodName(""))
                .withBean(ExampleConfiguration.InvoiceStore.class,
                        () -> (ExampleConfiguration.InvoiceStore) (invoice, fence) -> fences.add(fence))
                .withUserConfiguration(ExampleConfiguration.class)
                .run(ctx -> {
                    MessageChannel invoices = ctx.getBean("invoices", MessageChannel.class);
                    invoices.send(MessageBuilder.withPayload(new ExampleConfiguration.Invoice("acme", 100)).build());
                    invoices.send(MessageBuilder.withPayload(new ExampleConfiguration.Invoice("acme", 200)).build());
                    assertThat(fences).hasSize(2);
                    assertThat(fences.get(1)).isGreaterThan(fences.get(0));
                    assertThat(ctx).hasSingleBean(CoordisLockRegistry.class);
                    CoordisLeaderInitiator initiator = ctx.getBean(CoordisLeaderInitiator.class);
                    await().atMost(Duration.ofSeconds(5)).until(() -> initiator.getContext().isLeader());
                });
    }

    @Test
    void followsTheStartersClientAndLockOptions(RedisServer server) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CoordisIntegrationAutoConfiguration.class,
                        CoordisAutoConfiguration.class))
                .withPropertyValues("coordis.urls=" + server.uri(), "coordis.key-prefix=" + Prefixed.prefix(),
                        "coordis.lock.ttl=7s", "coordis.integration.registry-key=starter")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed().hasSingleBean(Coordis.class).hasSingleBean(CoordisLockRegistry.class);
                    Lock lock = ctx.getBean(CoordisLockRegistry.class).obtain("job");
                    lock.lock();
                    try {
                        assertThat((Long) server.command("PTTL", Prefixed.key("starter:job"))).isBetween(1L, 7_000L);
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void backsOffWithoutCoordisOrBesideARegistryOfTheApplication() {
        runner.run(ctx -> assertThat(ctx).doesNotHaveBean(CoordisLockRegistry.class));
        runner.withBean(Coordis.class, () -> coordis, bd -> bd.setDestroyMethodName(""))
                .withBean(LockRegistry.class, DefaultLockRegistry::new)
                .run(ctx -> assertThat(ctx).doesNotHaveBean(CoordisLockRegistry.class).hasSingleBean(LockRegistry.class));
    }
}
