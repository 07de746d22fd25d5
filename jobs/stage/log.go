package stage

import (
	"bufio"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/term"

	"github.com/saber-math/saber/jobs/config"
)

func isTTY(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// NewLogger returns the stage logger: JSON lines on stderr (or a human
// console on a TTY) carrying stage, run and the Slurm ids.
func NewLogger(cfg *config.Config, stage string, w io.Writer) zerolog.Logger {
	if w == nil {
		w = os.Stderr
	}
	format := cfg.Log.Format
	if format == "auto" {
		format = "json"
		if f, ok := w.(*os.File); ok && isTTY(f) {
			format = "console"
		}
	}
	if format == "console" {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly}
	}
	lvl, err := zerolog.ParseLevel(cfg.Log.Level)
	if err != nil {
		lvl = zerolog.InfoLevel
	}
	ctx := zerolog.New(w).Level(lvl).With().Timestamp().Str("stage", stage).Str("run", cfg.Run)
	for _, k := range slurmVars {
		if v := os.Getenv(k); v != "" {
			ctx = ctx.Str(strings.ToLower(k), v)
		}
	}
	return ctx.Logger()
}

// progressBar is stderr when it is a TTY and logs are for a human.
func progressBar(cfg *config.Config) io.Writer {
	if cfg.Log.Format == "json" || !isTTY(os.Stderr) {
		return nil
	}
	return os.Stderr
}

// LogTail returns the last n lines of a log file, or one line saying why
// it could not be read: for failure reports that point at a shard's log.
func LogTail(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return []string{"(log unreadable: " + err.Error() + ")"}
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return lines
}
