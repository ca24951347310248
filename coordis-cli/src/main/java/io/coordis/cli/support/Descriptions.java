package io.coordis.cli.support;

import picocli.CommandLine;

import java.util.ListResourceBundle;

/**
 * The help texts a command gives to options it takes from a mixin, where its words differ from the mixin's own
 * ({@code semaphore} speaks of a permit where {@code lock} speaks of the lock): keyed by the option's
 * {@code descriptionKey}, as picocli reads them from the command's resource bundle. Immutable.
 */
public final class Descriptions extends ListResourceBundle {
    private final Object[][] contents;

    private Descriptions(String... keysAndTexts) {
        if (keysAndTexts.length % 2 != 0) {
            throw new IllegalArgumentException("give a text for every key, got " + keysAndTexts.length + " strings");
        }
        contents = new Object[keysAndTexts.length / 2][];
        for (int i = 0; i < contents.length; i++) {
            contents[i] = new Object[] {keysAndTexts[2 * i], keysAndTexts[2 * i + 1]};
        }
    }

    /**
     * The command line of {@code command} with the help texts {@code keysAndTexts} (key, text, key, text...) in
     * place of its mixins' own.
     */
    public static CommandLine of(Object command, String... keysAndTexts) {
        return new CommandLine(command).setResourceBundle(new Descriptions(keysAndTexts));
    }

    @Override
    protected Object[][] getContents() {
        return contents;
    }
}
