/** An application module on Coordis: it reads the library's module and nothing of its internals. */
module io.coordis.example.modulepath {
    requires io.coordis.core;
}
