package io.coordis.cli;

import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Program;
import io.coordis.cli.support.Terminal;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Writes a manual page (roff, section 1) for {@code coordis} and for each of its commands and subcommands, from the
 * same picocli model that prints {@code --help}, so the two never disagree. The distribution's build runs it:
 * {@code java -cp coordis.jar io.coordis.cli.ManPages DIR} writes {@code coordis.1}, {@code coordis-lock.1},
 * {@code coordis-queue-push.1}, ... into DIR. Hidden options and commands are left out, as {@code --help} leaves
 * them out.
 */
final class ManPages {
    /** picocli's markup for emphasis in descriptions, {@code @|bold text|@}: the text is kept, the markup dropped. */
    private static final Pattern MARKUP = Pattern.compile("@\\|\\S+ (.*?)\\|@");

    private ManPages() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: ManPages DIRECTORY");
            System.exit(ExitCodes.USAGE);
        }
        Path dir = Path.of(args[0]);
        Files.createDirectories(dir);
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        CommandLine root = Commands.commandLine(new Terminal(InputStream.nullInputStream(), quiet, quiet, Map.of()));
        for (Map.Entry<String, String> page : pages(root, Program.version()).entrySet()) {
            Files.writeString(dir.resolve(page.getKey()), page.getValue(), StandardCharsets.UTF_8);
        }
    }

    /** Every page of the command tree under {@code root}, by file name, in the order of the tree. */
    static Map<String, String> pages(CommandLine root, String version) {
        Map<String, String> pages = new LinkedHashMap<>();
        add(root.getCommandSpec(), version, pages);
        return pages;
    }

    private static void add(CommandSpec command, String version, Map<String, String> pages) {
        pages.put(pageName(command) + ".1", page(command, version));
        for (CommandLine sub : visibleSubcommands(command)) {
            add(sub.getCommandSpec(), version, pages);
        }
    }

    /** {@code coordis-queue-push} for {@code coordis queue push}. */
    static String pageName(CommandSpec command) {
        return command.qualifiedName("-");
    }

    private static List<CommandLine> visibleSubcommands(CommandSpec command) {
        List<CommandLine> subs = new ArrayList<>();
        for (Map.Entry<String, CommandLine> e : command.subcommands().entrySet()) {
            CommandSpec sub = e.getValue().getCommandSpec();
            // aliases appear under each of their names: keep the entry under the command's own name
            if (!sub.usageMessage().hidden() && e.getKey().equals(sub.name())) {
                subs.add(e.getValue());
            }
        }
        return subs;
    }

    /** The page of one command. */
    static String page(CommandSpec command, String version) {
        StringBuilder roff = new StringBuilder();
        String name = pageName(command);
        roff.append(".TH \"").append(name.toUpperCase(Locale.ROOT)).append("\" 1 \"\" \"coordis ")
                .append(escape(version)).append("\" \"Coordis Manual\"\n");
        roff.append(".SH NAME\n").append(escape(name)).append(" \\- ")
                .append(escape(firstSentence(command.usageMessage().description()))).append('\n');

        roff.append(".SH SYNOPSIS\n");
        String synopsis = new CommandLine.Help(command, CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF))
                .synopsis(0).strip();
        roff.append(".nf\n").append(escape(synopsis)).append("\n.fi\n");

        String[] description = command.usageMessage().description();
        if (description.length > 0) {
            roff.append(".SH DESCRIPTION\n");
            paragraphs(roff, description);
        }

        List<PositionalParamSpec> positionals = command.positionalParameters().stream()
                .filter(p -> !p.hidden()).toList();
        if (!positionals.isEmpty()) {
            roff.append(".SH ARGUMENTS\n");
            for (PositionalParamSpec p : positionals) {
                roff.append(".TP\n\\fI").append(escape(p.paramLabel())).append("\\fR\n");
                roff.append(escape(text(p.description()))).append('\n');
            }
        }

        List<OptionSpec> options = command.options().stream().filter(o -> !o.hidden()).toList();
        if (!options.isEmpty()) {
            roff.append(".SH OPTIONS\n");
            for (OptionSpec o : options) {
                roff.append(".TP\n").append(optionHead(o)).append('\n');
                roff.append(escape(text(o.description()))).append('\n');
            }
        }

        List<CommandLine> subs = visibleSubcommands(command);
        if (!subs.isEmpty()) {
            roff.append(".SH COMMANDS\n");
            for (CommandLine sub : subs) {
                CommandSpec s = sub.getCommandSpec();
                roff.append(".TP\n\\fB").append(escape(s.name())).append("\\fR\n")
                        .append(escape(firstSentence(s.usageMessage().description()))).append(" See \\fB")
                        .append(escape(pageName(s))).append("\\fR(1).\n");
            }
        }

        String[] footer = command.usageMessage().footer();
        if (footer.length > 0 && !text(footer).isBlank()) {
            roff.append(".SH NOTES\n");
            paragraphs(roff, footer);
        }

        roff.append(".SH SEE ALSO\n");
        List<String> see = new ArrayList<>();
        if (command.parent() != null) {
            see.add("\\fB" + escape(pageName(command.parent())) + "\\fR(1)");
        }
        for (CommandLine sub : subs) {
            see.add("\\fB" + escape(pageName(sub.getCommandSpec())) + "\\fR(1)");
        }
        if (see.isEmpty()) {
            see.add("\\fBcoordis\\fR(1)");
        }
        roff.append(String.join(", ", see)).append('\n');
        return roff.toString();
    }

    /** {@code \fB-t\fR, \fB--ttl\fR=\fIDURATION\fR}. */
    private static String optionHead(OptionSpec o) {
        StringBuilder head = new StringBuilder();
        String[] names = o.names();
        for (int i = 0; i < names.length; i++) {
            head.append(i == 0 ? "" : ", ").append("\\fB").append(escape(names[i])).append("\\fR");
        }
        if (o.arity().max() > 0) {
            head.append("=\\fI").append(escape(o.paramLabel())).append("\\fR");
        }
        return head.toString();
    }

    /** Lines as picocli prints them; an empty line starts a new paragraph. */
    private static void paragraphs(StringBuilder roff, String[] lines) {
        boolean open = false;
        for (String line : lines) {
            String plain = plain(line);
            if (plain.isBlank()) {
                open = false;
                continue;
            }
            if (!open) {
                roff.append(".PP\n");
                open = true;
            }
            roff.append(escape(plain)).append('\n');
        }
    }

    private static String text(String[] lines) {
        List<String> plain = new ArrayList<>();
        for (String line : lines) {
            plain.add(plain(line));
        }
        return String.join(" ", plain).strip();
    }

    private static String plain(String line) {
        return MARKUP.matcher(line).replaceAll("$1").replace("%n", " ");
    }

    /** The description up to its first full stop followed by a blank, for the NAME line and the command lists. */
    private static String firstSentence(String[] description) {
        String all = text(description);
        int end = all.indexOf(". ");
        String sentence = end < 0 ? all : all.substring(0, end + 1);
        return sentence.endsWith(".") ? sentence.substring(0, sentence.length() - 1) : sentence;
    }

    /**
     * Text safe to put in a roff line: backslashes and hyphens escaped, and a line that would start with a control
     * character ({@code .} or {@code '}) guarded.
     */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (String line : text.split("\n", -1)) {
            if (out.length() > 0) {
                out.append('\n');
            }
            String escaped = line.replace("\\", "\\e").replace("-", "\\-");
            if (escaped.startsWith(".") || escaped.startsWith("'")) {
                out.append("\\&");
            }
            out.append(escaped);
        }
        return out.toString();
    }
}
