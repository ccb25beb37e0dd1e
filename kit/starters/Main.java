// A starter bot for Arbiter (game: __GAME__), in Java (the JDK's own library only: a build
// cannot download libraries).
//
// It speaks the protocol (docs/bots.md): one JSON object per line on stdin, one answer
// per line on stdout, flushed at once.  Debug output goes to stderr.  It plays a random
// legal move; make it stronger in chooseMove.
//
// The JSON reading here is just enough for the protocol: it finds the top-level fields
// of a message and the strings of "legal_moves".  The observation is handed to
// chooseMove as raw JSON text; parse what you need.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

public final class Main {
    private static int skipWs(String s, int i) {
        while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++;
        return i;
    }

    /** One JSON string from its opening quote: the position after its closing quote. */
    private static int skipString(String s, int i) {
        for (i++; i < s.length() && s.charAt(i) != '"'; i++) if (s.charAt(i) == '\\') i++;
        return Math.min(i + 1, s.length());
    }

    /** One JSON value of any kind: the position after it. */
    private static int skipValue(String s, int i) {
        i = skipWs(s, i);
        if (i < s.length() && s.charAt(i) == '"') return skipString(s, i);
        int depth = 0;
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"') { i = skipString(s, i) - 1; continue; }
            if (c == '{' || c == '[') depth++;
            if (c == '}' || c == ']') {
                if (depth == 0) return i;
                if (--depth == 0) return i + 1;
            }
            if (c == ',' && depth == 0) return i;
        }
        return i;
    }

    /** The raw JSON text of a top-level field of an object, or null. */
    static String field(String obj, String name) {
        int i = skipWs(obj, 0);
        if (i >= obj.length() || obj.charAt(i) != '{') return null;
        i = skipWs(obj, i + 1);
        while (i < obj.length() && obj.charAt(i) == '"') {
            int end = skipString(obj, i);
            String key = obj.substring(i + 1, end - 1);
            i = skipWs(obj, end);
            if (i >= obj.length() || obj.charAt(i) != ':') return null;
            i = skipWs(obj, i + 1);
            int after = skipValue(obj, i);
            if (key.equals(name)) return obj.substring(i, after);
            i = skipWs(obj, after);
            if (i < obj.length() && obj.charAt(i) == ',') i = skipWs(obj, i + 1);
        }
        return null;
    }

    /** The moves of "legal_moves" as raw JSON strings (quotes included, escapes kept). */
    static List<String> stringsOf(String list) {
        List<String> out = new ArrayList<>();
        int i = skipWs(list, 1);
        while (i < list.length() && list.charAt(i) == '"') {
            int end = skipString(list, i);
            out.add(list.substring(i, end));
            i = skipWs(list, end);
            if (i < list.length() && list.charAt(i) == ',') i = skipWs(list, i + 1);
        }
        return out;
    }

    /**
     * Chooses the move: {@code observation} is the raw JSON text of what your seat may see (see the
     * game's rules page), {@code moves} every legal answer.  Add your search here.  Returns an index.
     */
    static int chooseMove(String observation, List<String> moves, int seat, Random rng) {
        return rng.nextInt(moves.size());
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        Random rng = new Random(0);
        int seat = 0;
        for (String line; (line = in.readLine()) != null; ) {
            String type = field(line, "type");
            if ("\"start\"".equals(type)) {
                String s = field(line, "seat");
                seat = s == null ? 0 : Integer.parseInt(s.trim());
                // Seeded from the match, so the same match replays the same way.
                rng = new Random((field(line, "match") + ":" + seat).hashCode());
                out.println("{\"type\": \"ready\", \"name\": \"__NAME__\", \"version\": \"1\"}");
            } else if ("\"turn\"".equals(type)) {
                List<String> moves = stringsOf(String.valueOf(field(line, "legal_moves")));
                if (moves.isEmpty()) {
                    System.err.println("no legal moves in the turn");
                    continue;
                }
                String observation = field(line, "observation");
                // The move is echoed as the JSON string it came in, so no escaping is needed.
                out.println("{\"move\": " + moves.get(chooseMove(observation, moves, seat, rng)) + "}");
            } else if ("\"end\"".equals(type)) {
                break;
            }
            out.flush();
        }
    }
}
