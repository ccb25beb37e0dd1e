// A starter bot for Arbiter (game: __GAME__), in Go (standard library only: a build
// cannot download modules).
//
// It speaks the protocol (docs/bots.md): one JSON object per line on stdin, one answer
// per line on stdout, flushed at once.  Debug output goes to stderr.  It plays a random
// legal move; make it stronger in chooseMove.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
)

// message is every message the referee sends; the observation is kept as raw JSON
// (its fields are on the game's rules page): decode it into a struct of your own.
type message struct {
	Type        string          `json:"type"`
	Seat        int             `json:"seat"`
	Match       string          `json:"match"`
	LegalMoves  []string        `json:"legal_moves"`
	Observation json.RawMessage `json:"observation"`
}

// chooseMove returns the move to play.  Add your search here.
func chooseMove(observation json.RawMessage, legalMoves []string, seat int, rng *rand.Rand) string {
	return legalMoves[rng.Intn(len(legalMoves))]
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20) // a turn's line may be long
	out := bufio.NewWriter(os.Stdout)
	rng := rand.New(rand.NewSource(0))
	seat := 0
	for in.Scan() {
		var msg message
		if err := json.Unmarshal(in.Bytes(), &msg); err != nil {
			fmt.Fprintln(os.Stderr, "unreadable message:", err)
			continue
		}
		var reply any
		switch msg.Type {
		case "start":
			seat = msg.Seat
			// Seeded from the match, so the same match replays the same way.
			h := fnv.New64a()
			fmt.Fprintf(h, "%s:%d", msg.Match, seat)
			rng = rand.New(rand.NewSource(int64(h.Sum64())))
			reply = map[string]string{"type": "ready", "name": "__NAME__", "version": "1"}
		case "turn":
			reply = map[string]string{"move": chooseMove(msg.Observation, msg.LegalMoves, seat, rng)}
		case "end":
			return
		default:
			continue
		}
		line, _ := json.Marshal(reply)
		out.Write(append(line, '\n'))
		out.Flush()
	}
}
