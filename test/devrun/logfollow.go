package devrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// logFollower prints the warnings and errors the controller writes to its
// JSON log in console format: the terminal shows what needs attention, the
// file keeps everything.
type logFollower struct {
	path   string
	offset int64
	out    io.Writer
	// shown is when each distinct warning was last printed: a reconcile
	// retried with backoff repeats its error many times a minute.
	shown map[string]time.Time
}

// repeatAfter is how long an identical warning stays unprinted.
const repeatAfter = time.Minute

// followFromEnd follows path from its current end: earlier runs' lines
// stay in the file only.
func followFromEnd(path string, out io.Writer) *logFollower {
	f := &logFollower{path: path, out: out, shown: map[string]time.Time{}}
	if info, err := os.Stat(path); err == nil {
		f.offset = info.Size()
	}
	return f
}

// pollInterval is how often the log is read for new lines.
const pollInterval = 250 * time.Millisecond

// run prints new lines every poll interval until ctx ends, then reads
// once more: what a stopped or crashed controller wrote last.
func (f *logFollower) run(ctx context.Context) {
	var pending []byte
	for {
		pending = f.readNew(pending)
		select {
		case <-ctx.Done():
			pending = f.readNew(pending)
			if line, _, ok := consoleLine(pending); ok {
				fmt.Fprintln(f.out, line)
			}
			return
		case <-time.After(pollInterval):
		}
	}
}

// readNew prints the complete lines written since the last read and
// returns the incomplete rest.
func (f *logFollower) readNew(pending []byte) []byte {
	file, err := os.Open(f.path)
	if err != nil {
		return pending
	}
	defer file.Close()
	if _, err := file.Seek(f.offset, io.SeekStart); err != nil {
		return pending
	}
	data, err := io.ReadAll(file)
	if err != nil {
		return pending
	}
	f.offset += int64(len(data))
	pending = append(pending, data...)
	for {
		i := bytes.IndexByte(pending, '\n')
		if i < 0 {
			return pending
		}
		if line, key, ok := consoleLine(pending[:i]); ok && time.Since(f.shown[key]) > repeatAfter {
			f.shown[key] = time.Now()
			fmt.Fprintln(f.out, line)
		}
		pending = pending[i+1:]
	}
}

// consoleLine renders a JSON log line of level warn or above as
// "15:04:05 ERROR logger: message key=value ...". Lines that are not JSON
// (a crash, a flag error) are shown as they are. key identifies repeats:
// the line without its time and reconcile ID.
func consoleLine(raw []byte) (line, key string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", "", false
	}
	var entry map[string]any
	if err := json.Unmarshal(raw, &entry); err != nil {
		return string(raw), string(raw), true
	}
	level, _ := entry["level"].(string)
	switch level {
	case "warn", "error", "dpanic", "panic", "fatal":
	default:
		return "", "", false
	}
	var b strings.Builder
	b.WriteString(strings.ToUpper(level) + " ")
	if logger, _ := entry["logger"].(string); logger != "" {
		b.WriteString(logger + ": ")
	}
	msg, _ := entry["msg"].(string)
	b.WriteString(msg)
	keys := make([]string, 0, len(entry))
	for k := range entry {
		switch k {
		case "level", "ts", "logger", "msg", "caller", "stacktrace":
		default:
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "reconcileID" {
			fmt.Fprintf(&b, " %s=%v", k, entry[k])
		}
	}
	return timestamp(entry["ts"]) + " " + b.String(), b.String(), true
}

// timestamp renders zap's ts, seconds since the epoch or RFC 3339.
func timestamp(ts any) string {
	switch v := ts.(type) {
	case float64:
		return time.Unix(0, int64(v*float64(time.Second))).Format("15:04:05")
	case string:
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return t.Local().Format("15:04:05")
		}
	}
	return time.Now().Format("15:04:05")
}
