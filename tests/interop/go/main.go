// pcmail: a PseudoClaude team mailbox for the interop tests, built from source by
// tests/interop/test_pseudoclaude_go.py. Standard library only.
//
// It behaves as PseudoClaude's own mailbox store and file lock do
// (internal/team/mailbox, internal/team/filelock):
//
//   - the message struct below, with the same JSON tags and omitempty, a time.Time
//     timestamp (time.Now(), local zone, RFC 3339 with trailing zeros trimmed) and a
//     map[string]any payload (numbers become float64, keys come out sorted);
//   - the lock is <inbox>.json.lock made with O_WRONLY|O_CREATE|O_EXCL, mode 0600,
//     holding time.Now() in RFC 3339 with nanoseconds; 10 attempts with a random
//     5-100 ms wait between them; a lock whose mtime is older than 10 s is removed as
//     stale (and the attempt still waits); giving up returns os.ErrExist;
//   - under the lock: read and decode the whole Box (a missing file is an empty Box,
//     whose nil slice encodes as "messages": null), change it, json.MarshalIndent with
//     two spaces plus "\n", os.CreateTemp(<inboxes>, ".tmp-*.json") (mode 0600), write,
//     close, rename over the inbox; no fsync; folders made with mode 0755;
//   - Write defaults an empty type to "text" and a zero timestamp to now and clears
//     read; MarkRead with no indices does nothing (no lock, no write) and ignores
//     indices out of range; ReadUnread reads without the lock.
//
// usage:
//
//	pcmail append   -inbox P [-n N] [-prefix S] -from F -to T [-type T] [-summary S] [-content C] [-payload JSON]
//	pcmail markread -inbox P INDEX...          (indices may also be comma-separated)
//	pcmail rewrite  -inbox P                   (read and write back through encoding/json)
//	pcmail unread   -inbox P                   (ReadUnread as JSON on stdout)
//	pcmail idle     -inbox P -member-id A -lead-id L -member-name N -task-id T -status S [-result R] [-error E]
//	pcmail loop     -inbox P -n N -prefix S -from F -to T [-stop FILE] [-pause D]
//	pcmail tasks    create|update|loop|list -file P ...   (a task board: tasks.go)
//
// append prints "ACK <content>" or "GAVEUP <content> <error>" per message, like SendMessage
// (which writes one message per recipient). loop does, N times, what a member runner does
// around a turn: append one message, then ReadUnread and MarkRead what was unread
// ("MARKED <k>" or "MARKGAVEUP"), then waits up to -pause; with -stop it ends early once
// FILE exists (-n 0: only then). Both end with "DONE". A decode error is fatal (exit 2):
// it would mean a torn or invalid inbox.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // TZ=<zone name> works without the system's zoneinfo
)

type MessageType string

const (
	MessageText                 MessageType = "text"
	MessageShutdownRequest      MessageType = "shutdown_request"
	MessageShutdownResponse     MessageType = "shutdown_response"
	MessagePlanApprovalResponse MessageType = "plan_approval_response"
)

// Message has PseudoClaude's field order, tags and omitempty.
type Message struct {
	From      string         `json:"from"`
	To        string         `json:"to"`
	Type      MessageType    `json:"type"`
	Summary   string         `json:"summary"`
	Content   string         `json:"content,omitempty"`
	Payload   map[string]any `json:"payload,omitempty"`
	Timestamp time.Time      `json:"timestamp"`
	Read      bool           `json:"read"`
}

type IndexedMessage struct {
	Index   int     `json:"index"`
	Message Message `json:"message"`
}

type Box struct {
	Messages []Message `json:"messages"`
}

const (
	lockAttempts = 10
	lockMinWait  = 5 * time.Millisecond
	lockMaxWait  = 100 * time.Millisecond
	lockStale    = 10 * time.Second
)

// errFatal marks failures other than a lock give-up.
var errFatal = errors.New("fatal")

func acquire(ctx context.Context, lockPath string) (release func(), err error) {
	for attempt := 0; attempt < lockAttempts; attempt++ {
		f, err := os.OpenFile(lockPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, _ = f.WriteString(time.Now().Format(time.RFC3339Nano))
			_ = f.Close()
			return func() { _ = os.Remove(lockPath) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if st, statErr := os.Stat(lockPath); statErr == nil && time.Since(st.ModTime()) > lockStale {
			_ = os.Remove(lockPath)
		}
		if attempt == lockAttempts-1 {
			break
		}
		wait := lockMinWait + time.Duration(rand.Int64N(int64(lockMaxWait-lockMinWait)+1))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	return nil, os.ErrExist
}

// readJSON decodes the file at path into v; a missing file leaves v empty.
func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: %s: %v", errFatal, path, err)
	}
	return nil
}

func readBox(path string) (*Box, error) {
	var box Box
	return &box, readJSON(path, &box)
}

func writeJSONAtomic(path string, value any) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(value, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	tmp, err := os.CreateTemp(dir, ".tmp-*.json")
	if err != nil {
		return err
	}
	name := tmp.Name()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		_ = os.Remove(name)
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		_ = os.Remove(name)
		return err
	}
	return nil
}

// lockedUpdate is PseudoClaude's read-modify-write of a JSON file (an inbox or
// tasks.json): under path+".lock", decode the whole file, change it, write it back.
func lockedUpdate[T any](path string, change func(*T) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	release, err := acquire(context.Background(), path+".lock")
	if err != nil {
		return err
	}
	defer release()
	var v T
	if err := readJSON(path, &v); err != nil {
		return err
	}
	if err := change(&v); err != nil {
		return err
	}
	return writeJSONAtomic(path, &v)
}

func update(path string, change func(*Box)) error {
	return lockedUpdate(path, func(b *Box) error { change(b); return nil })
}

func write(path string, msg Message) error {
	if msg.Type == "" {
		msg.Type = MessageText
	}
	if msg.Timestamp.IsZero() {
		msg.Timestamp = time.Now()
	}
	msg.Read = false
	return update(path, func(b *Box) { b.Messages = append(b.Messages, msg) })
}

func markRead(path string, indices []int) error {
	if len(indices) == 0 {
		return nil
	}
	want := map[int]bool{}
	for _, i := range indices {
		want[i] = true
	}
	return update(path, func(b *Box) {
		for i := range want {
			if i >= 0 && i < len(b.Messages) {
				b.Messages[i].Read = true
			}
		}
	})
}

func readUnread(path string) ([]IndexedMessage, error) {
	box, err := readBox(path)
	if err != nil {
		return nil, err
	}
	out := []IndexedMessage{}
	for i, m := range box.Messages {
		if !m.Read {
			out = append(out, IndexedMessage{Index: i, Message: m})
		}
	}
	return out, nil
}

func die(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pcmail: "+format+"\n", args...)
	os.Exit(code)
}

// report prints the outcome of one write: ACK, GAVEUP (the lock), or exits on anything else.
func report(token string, err error) {
	switch {
	case err == nil:
		fmt.Printf("ACK %s\n", token)
	case errors.Is(err, os.ErrExist):
		fmt.Printf("GAVEUP %s %v\n", token, strings.ReplaceAll(err.Error(), " ", "_"))
	default:
		die(2, "%s: %v", token, err)
	}
}

func main() {
	if len(os.Args) < 2 {
		die(1, "usage: pcmail append|markread|rewrite|unread|idle|loop -inbox PATH ...")
	}
	cmd := os.Args[1]
	if cmd == "tasks" { // a team's task board: tasks.go
		tasksMain(os.Args[2:])
		return
	}
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	inbox := fs.String("inbox", "", "the inbox file <inboxes>/<agent_id>.json")
	n := fs.Int("n", 1, "how many messages")
	prefix := fs.String("prefix", "go", "content of message i is <prefix>-<i> unless -content")
	from := fs.String("from", "lead", "from")
	to := fs.String("to", "", "to")
	typ := fs.String("type", "", "type (empty: text)")
	summary := fs.String("summary", "", "summary")
	content := fs.String("content", "", "content")
	payload := fs.String("payload", "", "payload as a JSON object")
	memberID := fs.String("member-id", "", "idle: the member's agent id")
	leadID := fs.String("lead-id", "", "idle: the lead's agent id")
	memberName := fs.String("member-name", "", "idle: the member's name")
	taskID := fs.String("task-id", "", "idle: the task id")
	status := fs.String("status", "", "idle: the task status")
	result := fs.String("result", "", "idle: the task result")
	errText := fs.String("error", "", "idle: the task error")
	stop := fs.String("stop", "", "loop: end once this file exists")
	pause := fs.Duration("pause", 0, "loop: wait up to this long (random) between turns")
	_ = fs.Parse(os.Args[2:])
	if *inbox == "" {
		die(1, "-inbox is required")
	}
	switch cmd {
	case "append":
		var pl map[string]any
		if *payload != "" {
			if err := json.Unmarshal([]byte(*payload), &pl); err != nil {
				die(1, "-payload: %v", err)
			}
		}
		for i := 0; i < *n; i++ {
			token := *content
			if token == "" {
				token = fmt.Sprintf("%s-%d", *prefix, i)
			}
			msg := Message{From: *from, To: *to, Type: MessageType(*typ), Summary: *summary, Content: token, Payload: pl}
			report(token, write(*inbox, msg))
		}
	case "markread":
		var indices []int
		for _, arg := range fs.Args() {
			for _, part := range strings.Split(arg, ",") {
				i, err := strconv.Atoi(strings.TrimSpace(part))
				if err != nil {
					die(1, "bad index %q", part)
				}
				indices = append(indices, i)
			}
		}
		if err := markRead(*inbox, indices); err != nil {
			die(1, "markread: %v", err)
		}
	case "rewrite":
		if err := update(*inbox, func(*Box) {}); err != nil {
			die(1, "rewrite: %v", err)
		}
	case "unread":
		msgs, err := readUnread(*inbox)
		if err != nil {
			die(1, "unread: %v", err)
		}
		out, _ := json.Marshal(msgs)
		fmt.Println(string(out))
	case "idle":
		// What the team manager writes to the lead when an in-process member's task ends.
		s := "member idle"
		if *status != "" {
			s = "member idle: " + *status
		}
		msg := Message{
			From:    *memberID,
			To:      *leadID,
			Type:    MessageText,
			Summary: s,
			Content: *result,
			Payload: map[string]any{
				"member_name": *memberName,
				"task_id":     *taskID,
				"status":      *status,
				"error":       *errText,
			},
		}
		if err := write(*inbox, msg); err != nil {
			die(1, "idle: %v", err)
		}
	case "loop":
		for i := 0; *n <= 0 || i < *n; i++ {
			if *stop != "" {
				if _, err := os.Stat(*stop); err == nil {
					break
				}
			}
			token := fmt.Sprintf("%s-%d", *prefix, i)
			report(token, write(*inbox, Message{From: *from, To: *to, Type: MessageText, Summary: "race", Content: token}))
			unread, err := readUnread(*inbox)
			if err != nil {
				die(2, "unread: %v", err)
			}
			idx := make([]int, 0, len(unread))
			for _, u := range unread {
				idx = append(idx, u.Index)
			}
			switch err := markRead(*inbox, idx); {
			case err == nil:
				fmt.Printf("MARKED %d\n", len(idx))
			case errors.Is(err, os.ErrExist):
				fmt.Println("MARKGAVEUP")
			default:
				die(2, "markread: %v", err)
			}
			if *pause > 0 {
				time.Sleep(time.Duration(rand.Int64N(int64(*pause) + 1)))
			}
		}
	default:
		die(1, "unknown command %q", cmd)
	}
	if cmd == "append" || cmd == "loop" {
		fmt.Println("DONE")
	}
}
