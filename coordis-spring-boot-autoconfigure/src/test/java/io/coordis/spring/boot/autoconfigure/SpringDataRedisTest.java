package io.coordis.spring.boot.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Spring Data Redis connection details written as Coordis URLs. */
class SpringDataRedisTest {
    @Test
    void standaloneWithCredentialsAndDatabase() {
        var details = standalone("app", "p@ss w:rd", null, DataRedisConnectionDetails.Standalone.of("redis.local", 6380, 3));
        RedisUrls urls = new SpringDataRedis(details).urls();
        assertThat(urls.urls()).containsExactly("redis://app:p%40ss%20w%3Ard@redis.local:6380/3");
        assertThat(urls.source()).isEqualTo("spring.data.redis");
    }

    @Test
    void passwordWithoutUserAndTls() {
        var details = standalone(null, "secret", SslBundle.of(null), DataRedisConnectionDetails.Standalone.of("::1", 6379));
        assertThat(new SpringDataRedis(details).urls().urls()).containsExactly("rediss://:secret@[::1]:6379/0");
    }

    @Test
    void sentinelAndCluster() {
        var nodes = List.of(new DataRedisConnectionDetails.Node("s1", 26379), new DataRedisConnectionDetails.Node("s2", 26380));
        var sentinel = new DataRedisConnectionDetails() {
            @Override
            public Sentinel getSentinel() {
                return new Sentinel() {
                    public int getDatabase() {
                        return 1;
                    }

                    public String getMaster() {
                        return "mymaster";
                    }

                    public List<Node> getNodes() {
                        return nodes;
                    }

                    public String getUsername() {
                        return null;
                    }

                    public String getPassword() {
                        return null;
                    }
                };
            }
        };
        assertThat(new SpringDataRedis(sentinel).urls())
                .isEqualTo(new RedisUrls(List.of("redis-sentinel://s1:26379,s2:26380/1#mymaster"), "spring.data.redis.sentinel"));
        var cluster = new DataRedisConnectionDetails() {
            @Override
            public Cluster getCluster() {
                return () -> nodes;
            }
        };
        assertThat(new SpringDataRedis(cluster).urls().urls()).containsExactly("redis-cluster://s1:26379,s2:26380");
    }

    @Test
    void masterReplicaIsRefusedWithWhatToWrite() {
        var details = new DataRedisConnectionDetails() {
            @Override
            public MasterReplica getMasterReplica() {
                return () -> List.of(new Node("m", 6379));
            }
        };
        assertThatThrownBy(() -> new SpringDataRedis(details).urls()).isInstanceOf(ConfigurationProblem.class)
                .hasMessageContaining("spring.data.redis.masterreplica")
                .satisfies(e -> assertThat(((ConfigurationProblem) e).action()).contains("coordis.urls=redis://master:6379"));
    }

    /** The details Boot derives from spring.data.redis.* for one server; null where a property is not set. */
    private static DataRedisConnectionDetails standalone(String username, String password, SslBundle ssl,
                                                         DataRedisConnectionDetails.Standalone standalone) {
        return new DataRedisConnectionDetails() {
            @Override
            public String getUsername() {
                return username;
            }

            @Override
            public String getPassword() {
                return password;
            }

            @Override
            public SslBundle getSslBundle() {
                return ssl;
            }

            @Override
            public Standalone getStandalone() {
                return standalone;
            }
        };
    }
}
