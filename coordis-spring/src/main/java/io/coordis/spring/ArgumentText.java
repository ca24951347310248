package io.coordis.spring;

import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParserContext;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import java.lang.reflect.Method;

/**
 * Text an annotation computes from the method's arguments with SpEL: a name with {@code #{...}} templates
 * ({@code "order:#{#orderId}"}), or a plain expression ({@code "#userId"}). Parsed once, when the bean is proxied,
 * so a broken expression fails at start-up; evaluated on every call. Every error names the annotation, the method
 * and the attribute. Immutable and thread-safe.
 */
final class ArgumentText {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

    private final String literal;
    private final Expression expression;
    private final Site site;
    /** What the text is, for messages: "the lock name". */
    private final String what;

    private ArgumentText(String literal, Expression expression, Site site, String what) {
        this.literal = literal;
        this.expression = expression;
        this.site = site;
        this.what = what;
    }

    /**
     * Where the text is written, for messages.
     *
     * @param annotation the annotation, {@code "@Locked"}
     * @param method     the annotated method
     * @param attribute  the attribute's name
     * @param written    the attribute as written, placeholders unresolved
     */
    record Site(String annotation, Method method, String attribute, String written) {
    }

    /**
     * A name attribute: literal unless it holds {@code #{...}} templates.
     *
     * @param site     the annotation, method and attribute, for messages
     * @param resolved the attribute with its placeholders resolved
     * @param what     what the text is, for messages ("the lock name")
     * @param example  how to write it, for messages ({@code "order:#{#orderId}"})
     * @throws IllegalStateException when a template is not valid SpEL
     */
    static ArgumentText template(Site site, String resolved, String what, String example) {
        if (!resolved.contains("#{")) {
            return new ArgumentText(resolved, null, site, what);
        }
        return new ArgumentText(null, parse(site, resolved, new TemplateParserContext(), "whose #{...} is not",
                example), site, what);
    }

    /**
     * A plain SpEL expression over the arguments, such as {@code #userId}.
     *
     * @param site     the annotation, method and attribute, for messages
     * @param resolved the attribute with its placeholders resolved
     * @param what     what the text is, for messages ("the limiter's key")
     * @param example  how to write it, for messages ({@code "#userId"})
     * @throws IllegalStateException when it is not valid SpEL
     */
    static ArgumentText expression(Site site, String resolved, String what, String example) {
        return new ArgumentText(null, parse(site, resolved, null, "which is not", example), site, what);
    }

    private static Expression parse(Site site, String text, ParserContext context, String isNot, String example) {
        try {
            return context == null ? PARSER.parseExpression(text) : PARSER.parseExpression(text, context);
        } catch (RuntimeException e) {
            throw new IllegalStateException(site.annotation() + " on " + Attributes.describe(site.method()) + " has "
                    + site.attribute() + " = \"" + site.written() + "\", " + isNot + " a valid SpEL expression ("
                    + e.getMessage() + "); write it like " + example, e);
        }
    }

    /**
     * The text for one call.
     *
     * @throws IllegalArgumentException when the expression fails, or answers nothing or blank text
     */
    String evaluate(Object[] args, Attributes attributes) {
        if (expression == null) {
            return literal;
        }
        Method method = site.method();
        String at = site.annotation() + " on " + Attributes.describe(method) + ": ";
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(null, method, args, NAMES);
        context.setBeanResolver(new BeanFactoryResolver(attributes.beanFactory()));
        Object value;
        try {
            value = expression.getValue(context);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(at + "cannot evaluate " + what + " \""
                    + expression.getExpressionString() + "\": " + e.getMessage()
                    + " (arguments are #p0, #p1, ..., or #name when compiled with -parameters)", e);
        }
        String text = value == null ? "" : value.toString();
        if (text.isBlank()) {
            String noun = what.substring(what.lastIndexOf(' ') + 1);
            throw new IllegalArgumentException(at + what + " \"" + expression.getExpressionString()
                    + "\" evaluated to an empty " + noun + " for these arguments");
        }
        return text;
    }

    /**
     * Whether the text is the same for every call.
     *
     * @return {@code true} for a literal
     */
    boolean isLiteral() {
        return expression == null;
    }
}
