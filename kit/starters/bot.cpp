// A starter bot for Arbiter (game: __GAME__), in C++ (standard library only).
//
// It speaks the protocol (docs/bots.md): one JSON object per line on stdin,
// one answer per line on stdout, flushed at once.  Debug output goes to stderr.
// It plays a random legal move; make it stronger in choose_move.
//
// The JSON reading here is just enough for the protocol: it finds the top-level
// fields of a message and the strings of "legal_moves".  The observation is
// handed to choose_move as raw JSON text; parse what you need.
#include <cstdint>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

size_t skip_ws(std::string_view s, size_t i) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) i++;
    return i;
}

// One JSON string from its opening quote: the position after its closing quote.
size_t skip_string(std::string_view s, size_t i) {
    for (i++; i < s.size() && s[i] != '"'; i++)
        if (s[i] == '\\') i++;
    return i + 1;
}

// One JSON value of any kind: the position after it.
size_t skip_value(std::string_view s, size_t i) {
    i = skip_ws(s, i);
    if (i < s.size() && s[i] == '"') return skip_string(s, i);
    int depth = 0;
    for (; i < s.size(); i++) {
        char c = s[i];
        if (c == '"') { i = skip_string(s, i) - 1; continue; }
        if (c == '{' || c == '[') depth++;
        if (c == '}' || c == ']') {
            if (depth == 0) return i;
            if (--depth == 0) return i + 1;
        }
        if (c == ',' && depth == 0) return i;
    }
    return i;
}

// The raw JSON text of a top-level field of an object, if it has one.
std::optional<std::string_view> field(std::string_view obj, std::string_view name) {
    size_t i = skip_ws(obj, 0);
    if (i >= obj.size() || obj[i] != '{') return std::nullopt;
    i = skip_ws(obj, i + 1);
    while (i < obj.size() && obj[i] == '"') {
        size_t end = skip_string(obj, i);
        std::string_view key = obj.substr(i + 1, end - i - 2);
        i = skip_ws(obj, end);
        if (i >= obj.size() || obj[i] != ':') return std::nullopt;
        i = skip_ws(obj, i + 1);
        size_t after = skip_value(obj, i);
        if (key == name) return obj.substr(i, after - i);
        i = skip_ws(obj, after);
        if (i < obj.size() && obj[i] == ',') i = skip_ws(obj, i + 1);
    }
    return std::nullopt;
}

// The moves of "legal_moves" as raw JSON strings (quotes included, escapes kept).
std::vector<std::string_view> strings_of(std::string_view list) {
    std::vector<std::string_view> out;
    size_t i = skip_ws(list, 1);
    while (i < list.size() && list[i] == '"') {
        size_t end = skip_string(list, i);
        out.push_back(list.substr(i, end - i));
        i = skip_ws(list, end);
        if (i < list.size() && list[i] == ',') i = skip_ws(list, i + 1);
    }
    return out;
}

// Chooses the move: `observation` is the raw JSON text of what your seat may see (see the
// game's rules page), `moves` every legal answer.  Add your search here.  Returns an index.
size_t choose_move(std::string_view observation, const std::vector<std::string_view>& moves, long seat,
                   std::mt19937_64& rng) {
    (void)observation;
    (void)seat;
    return std::uniform_int_distribution<size_t>(0, moves.size() - 1)(rng);
}

}  // namespace

int main() {
    std::ios::sync_with_stdio(false);
    std::mt19937_64 rng(0);
    long seat = 0;
    std::string line;
    while (std::getline(std::cin, line)) {
        auto type = field(line, "type").value_or("");
        if (type == "\"start\"") {
            seat = std::stol(std::string(field(line, "seat").value_or("0")));
            // Seeded from the match, so the same match replays the same way.
            rng.seed(std::hash<std::string>{}(std::string(field(line, "match").value_or(""))) + seat);
            std::cout << "{\"type\": \"ready\", \"name\": \"__NAME__\", \"version\": \"1\"}" << std::endl;
        } else if (type == "\"turn\"") {
            auto moves = strings_of(field(line, "legal_moves").value_or("[]"));
            if (moves.empty()) { std::cerr << "no legal moves in the turn" << std::endl; continue; }
            auto observation = field(line, "observation").value_or("null");
            // The move is echoed as the JSON string it came in, so no escaping is needed.
            std::cout << "{\"move\": " << moves[choose_move(observation, moves, seat, rng)] << "}" << std::endl;
        } else if (type == "\"end\"") {
            break;
        }
    }
    return 0;
}
