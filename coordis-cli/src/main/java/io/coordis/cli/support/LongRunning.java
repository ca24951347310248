package io.coordis.cli.support;

/**
 * A command whose client stays for as long as it serves or leads, hours maybe ({@code dashboard}, {@code queue work},
 * {@code elect}): its client starts the library's own Lettuce resources, sized for a long-lived application, instead
 * of the small ones of a short command ({@link CommandResources}). A marker on the command class.
 */
public interface LongRunning {
}
