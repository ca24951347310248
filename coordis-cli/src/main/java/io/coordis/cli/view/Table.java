package io.coordis.cli.view;

import java.util.ArrayList;
import java.util.List;

/** A plain text table: a header row and data rows, columns padded to their widest cell, two spaces apart. */
public final class Table {
    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
        rows.add(header);
    }

    Table row(String... cells) {
        rows.add(cells);
        return this;
    }

    /** The lines of the table (no trailing blanks). */
    List<String> lines() {
        int columns = rows.get(0).length;
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int c = 0; c < columns; c++) {
                width[c] = Math.max(width[c], r[c].length());
            }
        }
        List<String> lines = new ArrayList<>();
        for (String[] r : rows) {
            StringBuilder sb = new StringBuilder();
            for (int c = 0; c < columns; c++) {
                sb.append(r[c]);
                if (c < columns - 1) {
                    sb.append(" ".repeat(width[c] - r[c].length() + 2));
                }
            }
            lines.add(sb.toString().stripTrailing());
        }
        return lines;
    }
}
