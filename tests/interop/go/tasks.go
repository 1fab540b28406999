// pcmail tasks: a PseudoClaude team task board (internal/team/teamtask) for the task
// tests (tests/interop/test_tasks_pseudoclaude.py). Standard library only.
//
// As its store does: <team>/tasks.json is {"tasks": [...]} with the Task struct below
// (tags, omitempty, time.Time created_at/updated_at); every change takes the same O_EXCL
// lock as the inboxes (tasks.json.lock) and the same read-modify-write (lockedUpdate in
// main.go: decode the whole file, a missing one is empty; change it; MarshalIndent +
// "\n", .tmp-*.json + rename). Create appends a task with a fresh
// "task_<12 hex>" id and status todo; Update sets the given fields and updated_at.
//
// usage:
//
//	pcmail tasks create -file P [-n N] [-prefix S] [-assignee A]   prints "CREATED <id>"
//	pcmail tasks update -file P -id ID [-status S] [-description D]
//	pcmail tasks loop   -file P -n N [-prefix S] [-pause D]
//	    N times: create a task titled <prefix>-<i>, then set the description of a random
//	    task to <prefix>-<i>; prints "CREATED <id>", "UPD <id> <value>" or "GAVEUP ..."
//	pcmail tasks list   -file P                                      the tasks as JSON
//
// A decode error is fatal (exit 2): it would mean a torn or invalid file.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"time"
)

type TaskStatus string

type Task struct {
	ID          string     `json:"id"`
	Title       string     `json:"title"`
	Description string     `json:"description,omitempty"`
	Assignee    string     `json:"assignee,omitempty"`
	Status      TaskStatus `json:"status"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	BlockedBy   []string   `json:"blocked_by,omitempty"`
	Blocks      []string   `json:"blocks,omitempty"`
}

type taskFile struct {
	Tasks []Task `json:"tasks"`
}

func readTasks(path string) (*taskFile, error) {
	var st taskFile
	return &st, readJSON(path, &st)
}

func newTaskID() string {
	buf := make([]byte, 6)
	_, _ = rand.Read(buf)
	return "task_" + hex.EncodeToString(buf)
}

func createTask(path, title, assignee string) (string, error) {
	now := time.Now()
	t := Task{ID: newTaskID(), Title: title, Assignee: assignee, Status: "todo", CreatedAt: now, UpdatedAt: now}
	return t.ID, lockedUpdate(path, func(st *taskFile) error {
		st.Tasks = append(st.Tasks, t)
		return nil
	})
}

func updateTask(path, id string, status, description *string) error {
	return lockedUpdate(path, func(st *taskFile) error {
		for i := range st.Tasks {
			if st.Tasks[i].ID != id {
				continue
			}
			if status != nil {
				st.Tasks[i].Status = TaskStatus(*status)
			}
			if description != nil {
				st.Tasks[i].Description = *description
			}
			st.Tasks[i].UpdatedAt = time.Now()
			return nil
		}
		return fmt.Errorf("%w: task %q not found", errFatal, id)
	})
}

// outcome prints a lock give-up and carries on; anything else is fatal.
func outcome(err error, ok string) {
	switch {
	case err == nil:
		fmt.Println(ok)
	case errors.Is(err, os.ErrExist):
		fmt.Printf("GAVEUP %s\n", ok)
	default:
		die(2, "tasks: %v", err)
	}
}

func tasksMain(args []string) {
	if len(args) < 1 {
		die(1, "usage: pcmail tasks create|update|loop|list -file PATH ...")
	}
	cmd := args[0]
	fs := flag.NewFlagSet("tasks "+cmd, flag.ExitOnError)
	file := fs.String("file", "", "the team's tasks.json")
	n := fs.Int("n", 1, "how many")
	prefix := fs.String("prefix", "go", "titles and descriptions are <prefix>-<i>")
	assignee := fs.String("assignee", "", "create: the assignee")
	id := fs.String("id", "", "update: the task id")
	status := fs.String("status", "", "update: the new status")
	description := fs.String("description", "", "update: the new description")
	pause := fs.Duration("pause", 0, "loop: wait up to this long (random) between turns")
	_ = fs.Parse(args[1:])
	if *file == "" {
		die(1, "-file is required")
	}
	switch cmd {
	case "create":
		for i := 0; i < *n; i++ {
			tid, err := createTask(*file, fmt.Sprintf("%s-%d", *prefix, i), *assignee)
			outcome(err, "CREATED "+tid)
		}
	case "update":
		var s, d *string
		if *status != "" {
			s = status
		}
		if *description != "" {
			d = description
		}
		if err := updateTask(*file, *id, s, d); err != nil {
			die(2, "update: %v", err)
		}
	case "loop":
		for i := 0; i < *n; i++ {
			token := fmt.Sprintf("%s-%d", *prefix, i)
			tid, err := createTask(*file, token, "")
			outcome(err, "CREATED "+tid)
			st, err := readTasks(*file)
			if err != nil {
				die(2, "read: %v", err)
			}
			if len(st.Tasks) > 0 {
				pick := st.Tasks[mrand.IntN(len(st.Tasks))].ID
				outcome(updateTask(*file, pick, nil, &token), fmt.Sprintf("UPD %s %s", pick, token))
			}
			if *pause > 0 {
				time.Sleep(time.Duration(mrand.Int64N(int64(*pause) + 1)))
			}
		}
		fmt.Println("DONE")
	case "list":
		st, err := readTasks(*file)
		if err != nil {
			die(2, "list: %v", err)
		}
		out, _ := json.Marshal(st.Tasks)
		fmt.Println(string(out))
	default:
		die(1, "unknown tasks command %q", cmd)
	}
}
