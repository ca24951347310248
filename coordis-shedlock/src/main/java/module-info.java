/**
 * A ShedLock lock provider on Coordis ({@code io.coordis.shedlock.CoordisLockProvider}), with a Spring Boot
 * auto-configuration that applications without Spring Boot never load (Spring Boot is an optional dependency, so
 * it is required statically: present at compile time, absent at run time unless the application brings it).
 */
module io.coordis.shedlock {
    requires transitive io.coordis.core;
    requires transitive net.javacrumbs.shedlock.core;
    requires org.slf4j;
    requires static spring.boot.autoconfigure;
    requires static spring.boot;
    requires static spring.context;
    requires static spring.beans;
    requires static spring.core;

    exports io.coordis.shedlock;
    // Spring creates the auto-configuration and its beans by reflection.
    opens io.coordis.shedlock to spring.core, spring.beans, spring.context;
}
