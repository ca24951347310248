package io.coordis.bench;

/**
 * One performance target of the issue, checked against the medians of per-round values:
 * <ul>
 *   <li>{@link Kind#RATIO}: Coordis's {@code metric} ÷ implementation {@code other}'s, in the same round;</li>
 *   <li>{@link Kind#ABSOLUTE}: Coordis's {@code metric} itself;</li>
 *   <li>{@link Kind#GROWTH}: Coordis's {@code metric} in this scenario ÷ in scenario {@code other}, same round;</li>
 *   <li>{@link Kind#SPREAD}: Coordis's {@code metric} ÷ its {@code metric2} (e.g. slowest ÷ fastest thread);</li>
 *   <li>{@link Kind#GROWTH_RATIO}: Coordis's {@link Kind#GROWTH} ÷ the same growth of implementation
 *       {@code metric2}, every quotient within one round (e.g. p50 growth from 3 to 7 masters against raw
 *       parallel Lettuce's).</li>
 * </ul>
 *
 * @param text   the target as the issue states it
 * @param atLeast {@code true} for "≥ bound", {@code false} for "≤ bound"
 */
record Target(String text, Kind kind, String metric, String other, String metric2, boolean atLeast, double bound) {

    /** How the checked value is formed. */
    enum Kind { RATIO, ABSOLUTE, GROWTH, SPREAD, GROWTH_RATIO }

    static Target ratio(String text, String metric, String anchor, boolean atLeast, double bound) {
        return new Target(text, Kind.RATIO, metric, anchor, null, atLeast, bound);
    }

    static Target absolute(String text, String metric, boolean atLeast, double bound) {
        return new Target(text, Kind.ABSOLUTE, metric, null, null, atLeast, bound);
    }

    static Target growth(String text, String metric, String fromScenario, boolean atLeast, double bound) {
        return new Target(text, Kind.GROWTH, metric, fromScenario, null, atLeast, bound);
    }

    /** Coordis's growth of {@code metric} from {@code fromScenario} to this one ÷ {@code anchor}'s growth. */
    static Target growthRatio(String text, String metric, String fromScenario, String anchor, boolean atLeast,
                              double bound) {
        return new Target(text, Kind.GROWTH_RATIO, metric, fromScenario, anchor, atLeast, bound);
    }

    static Target spread(String text, String metric, String over, boolean atLeast, double bound) {
        return new Target(text, Kind.SPREAD, metric, null, over, atLeast, bound);
    }

    /** Whether {@code value} meets the bound; a missing value (NaN) never does. */
    boolean met(double value) {
        if (Double.isNaN(value)) {
            return false;
        }
        return atLeast ? value >= bound : value <= bound;
    }
}
