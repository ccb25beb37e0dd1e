//! A starter bot for Arbiter (game: __GAME__), in Rust (standard library only: a build
//! cannot download crates).
//!
//! It speaks the protocol (docs/bots.md): one JSON object per line on stdin, one answer
//! per line on stdout, flushed at once.  Debug output goes to stderr.  It plays a random
//! legal move; make it stronger in `choose_move`.
//!
//! The JSON reading here is just enough for the protocol: it finds the top-level fields
//! of a message and the strings of "legal_moves".  The observation is handed to
//! `choose_move` as raw JSON text; parse what you need.
use std::io::{self, BufRead, Write};

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    i
}

/// One JSON string from its opening quote: the position after its closing quote.
fn skip_string(s: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < s.len() && s[i] != b'"' {
        if s[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    (i + 1).min(s.len())
}

/// One JSON value of any kind: the position after it.
fn skip_value(s: &[u8], i: usize) -> usize {
    let mut i = skip_ws(s, i);
    if i < s.len() && s[i] == b'"' {
        return skip_string(s, i);
    }
    let mut depth = 0;
    while i < s.len() {
        match s[i] {
            b'"' => {
                i = skip_string(s, i);
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth == 0 => return i,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            b',' if depth == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The raw JSON text of a top-level field of an object, if it has one.
fn field<'a>(obj: &'a str, name: &str) -> Option<&'a str> {
    let s = obj.as_bytes();
    let mut i = skip_ws(s, 0);
    if i >= s.len() || s[i] != b'{' {
        return None;
    }
    i = skip_ws(s, i + 1);
    while i < s.len() && s[i] == b'"' {
        let end = skip_string(s, i);
        let key = &obj[i + 1..end - 1];
        i = skip_ws(s, end);
        if i >= s.len() || s[i] != b':' {
            return None;
        }
        i = skip_ws(s, i + 1);
        let after = skip_value(s, i);
        if key == name {
            return Some(&obj[i..after]);
        }
        i = skip_ws(s, after);
        if i < s.len() && s[i] == b',' {
            i = skip_ws(s, i + 1);
        }
    }
    None
}

/// The moves of "legal_moves" as raw JSON strings (quotes included, escapes kept).
fn strings_of(list: &str) -> Vec<&str> {
    let s = list.as_bytes();
    let mut out = Vec::new();
    let mut i = skip_ws(s, 1);
    while i < s.len() && s[i] == b'"' {
        let end = skip_string(s, i);
        out.push(&list[i..end]);
        i = skip_ws(s, end);
        if i < s.len() && s[i] == b',' {
            i = skip_ws(s, i + 1);
        }
    }
    out
}

/// A small seeded generator (xorshift), so the same match replays the same way.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Chooses the move: `observation` is the raw JSON text of what your seat may see (see the
/// game's rules page), `moves` every legal answer.  Add your search here.  Returns an index.
fn choose_move(_observation: &str, moves: &[&str], _seat: i64, rng: &mut Rng) -> usize {
    (rng.next() % moves.len() as u64) as usize
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut rng = Rng(88172645463325252);
    let mut seat = 0i64;
    for line in stdin.lock().lines() {
        let line = line.expect("stdin");
        match field(&line, "type") {
            Some("\"start\"") => {
                seat = field(&line, "seat").and_then(|s| s.trim().parse().ok()).unwrap_or(0);
                let mut state = 1469598103934665603u64 ^ (seat as u64 + 1);
                for b in field(&line, "match").unwrap_or("").bytes() {
                    state = (state ^ b as u64).wrapping_mul(1099511628211);
                }
                rng = Rng(state.max(1));
                writeln!(out, "{{\"type\": \"ready\", \"name\": \"__NAME__\", \"version\": \"1\"}}").unwrap();
                out.flush().unwrap();
            }
            Some("\"turn\"") => {
                let moves = strings_of(field(&line, "legal_moves").unwrap_or("[]"));
                if moves.is_empty() {
                    eprintln!("no legal moves in the turn");
                    continue;
                }
                let observation = field(&line, "observation").unwrap_or("null");
                // The move is echoed as the JSON string it came in, so no escaping is needed.
                let chosen = moves[choose_move(observation, &moves, seat, &mut rng)];
                writeln!(out, "{{\"move\": {}}}", chosen).unwrap();
                out.flush().unwrap();
            }
            Some("\"end\"") => break,
            _ => {}
        }
    }
}
