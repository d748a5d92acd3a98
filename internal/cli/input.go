package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/openlineage"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/logsource"
	"github.com/greenlight-ci/greenlight/internal/osfile"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// The values of --input-format, as checker.Request takes them.
const (
	formatNative      = checker.FormatNative
	formatOpenLineage = checker.FormatOpenLineage
)

// checkInput checks one event log in the given format: a native log is
// its files read as one log in the order given, each decompressed when it
// is gzip or zstd (internal/logsource). An OpenLineage log is one file
// (decompressed likewise) or a directory: its *.json files, one event
// each, are read in byte order of their names (the Python client's file
// transport names them with a sortable timestamp); names starting with a
// dot are skipped and any other entry is an error, so no evidence is
// silently left out.
//
// progress is the --progress value: the files are read through one
// progress display on stderr (progressFor), which is erased before
// checkInput returns. rd is how a native log is read (a checkpoint, or
// no hashing for validate); an OpenLineage log is read as always.
func checkInput(names []string, opts checker.Options, rd checker.Reading, format, progress string, env Env) (*checker.Result, error) {
	open := func(names []string) ([]*logsource.File, error) {
		return OpenLog(names, env.Stdin)
	}
	if format != formatOpenLineage {
		files, err := open(names)
		if err != nil {
			return nil, err
		}
		defer logsource.CloseAll(files)
		logs := logsource.Logs(files)
		wrap, finish := progressFor(progress, logsSize(files), env.Stderr, nil)
		defer finish()
		for i := range logs {
			logs[i].R = wrap(logs[i].R)
		}
		return checker.CheckFiles(logs, opts, rd)
	}
	name := names[0]
	var err error
	var res *checker.Result
	if st, serr := os.Stat(name); name != "-" && serr == nil && st.IsDir() {
		docs, derr := readEventDir(name)
		if derr != nil {
			return nil, derr
		}
		res, err = openlineage.CheckDocuments(docs, opts)
	} else {
		files, oerr := open(names[:1])
		if oerr != nil {
			return nil, oerr
		}
		defer logsource.CloseAll(files)
		wrap, finish := progressFor(progress, logsSize(files), env.Stderr, nil)
		res, err = openlineage.Check(wrap(files[0].Log.R), opts)
		finish()
	}
	if err != nil {
		return nil, err
	}
	if s := res.Snapshot; s != nil && opts.Definition == nil && !opts.InferStages {
		// The stages come from the log (docs/openlineage.md): say so, since
		// a job that never logged cannot be missed that way.
		fmt.Fprintf(env.Stderr, "greenlight: %s: the stages were inferred from the log, so a job whose events never arrived cannot be missed; a gate needs --pipeline FILE or --infer-stages\n",
			render.Terminal(displayName(name)))
	}
	if s := res.Snapshot; s != nil && s.Source.ReorderedEvents != nil && *s.Source.ReorderedEvents > 0 {
		fmt.Fprintf(env.Stderr, "greenlight: %s: %s put back in eventTime order within their pipeline run\n",
			render.Terminal(displayName(name)), words.Count(*s.Source.ReorderedEvents, "event"))
	}
	if s := res.Snapshot; s != nil && s.Source.IgnoredEvents != nil {
		c := s.Source.IgnoredEvents
		var kinds []string
		total := 0
		for _, k := range []struct {
			n    int
			kind string
		}{{c.Other, "OTHER RunEvent"}, {c.NoEventType, "RunEvent without eventType"}, {c.DatasetEvent, "DatasetEvent"}, {c.JobEvent, "JobEvent"}} {
			if k.n > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", k.n, k.kind))
			}
			total += k.n
		}
		if total > 0 {
			fmt.Fprintf(env.Stderr, "greenlight: %s: %s no state transition of a run, ignored: %s\n",
				render.Terminal(displayName(name)), words.Count(total, "event is"), strings.Join(kinds, ", "))
		}
	}
	return res, nil
}

// readEventDir reads the *.json files of an OpenLineage event directory in
// name order.
func readEventDir(dir string) ([]openlineage.Document, error) {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, fmt.Errorf("cannot read the event directory: %s", osfile.Describe(err))
	}
	var docs []openlineage.Document
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			return nil, fmt.Errorf("cannot read the event directory: %s is not a *.json file (an event directory holds one event per *.json file)", render.Terminal(path))
		}
		data, err := osfile.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("cannot read the event directory: %s", osfile.Describe(err))
		}
		docs = append(docs, openlineage.Document{Name: path, Data: data})
	}
	return docs, nil
}

// hasGlob reports whether name holds a glob character of doublestar's
// syntax (* ? [ {).
func hasGlob(name string) bool {
	return strings.ContainsAny(name, "*?[{")
}

// expandLogs turns the event-log arguments into file names, expanding a
// quoted glob ('logs/*.jsonl', ** for any depth) as the action expands its
// events input (internal/action): its matches are the regular files it
// names, sorted, directories passed over, ** not descending into a
// symbolic link. A glob that matches no file is an error (fail-closed: no
// log is not a healthy log) that also says why the name is no file. "-", a name without glob characters and a
// name that exists as it is stay as given; a file named twice is read once.
func expandLogs(args []string) ([]string, error) {
	seen := map[string]bool{}
	var names []string
	for _, a := range args {
		matches := []string{a}
		if _, err := os.Lstat(a); a != "-" && hasGlob(a) && err != nil {
			var gerr error
			matches, gerr = doublestar.FilepathGlob(a, doublestar.WithFilesOnly(), doublestar.WithFailOnIOErrors(), doublestar.WithNoFollow())
			if errors.Is(gerr, doublestar.ErrBadPattern) {
				// Not a glob ("red[1.jsonl"): the name as it is.
				matches, gerr = []string{a}, nil
			}
			if gerr != nil && !errors.Is(gerr, os.ErrNotExist) {
				return nil, fmt.Errorf("%s: %s", render.Terminal(a), osfile.Describe(gerr))
			}
			if len(matches) == 0 {
				// Not a file, nor a glob of any: the open's own error
				// says which of the two the user meant to miss.
				_, oerr := osfile.Open(a)
				return nil, fmt.Errorf("%v, and as a glob it matches no file (fail-closed: no log is not a healthy log)", readError("the event log", oerr))
			}
			sort.Strings(matches)
		}
		for _, m := range matches {
			if m == "-" || !seen[m] {
				seen[m] = true
				names = append(names, m)
			}
		}
	}
	return names, nil
}

// logsSize is the bytes a progress display can expect from files: the sum
// of their sizes when every one is a plain regular file, else -1 (unknown:
// standard input, or a compressed file, whose text is larger than the file).
func logsSize(files []*logsource.File) int64 {
	var total int64
	for _, f := range files {
		n := f.PlainSize()
		if n < 0 {
			return -1
		}
		total += n
	}
	return total
}
