package io.coordis.internal.inspect;

/**
 * One node's read of one string key, or why it failed.
 *
 * @param node  the node's address
 * @param read  what it holds; null when the node failed or this user may not read the key
 * @param error why there is no read
 */
record NodeRead(String node, StringRead read, String error) {
}
