package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/spf13/pflag"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/atomicfile"
	"github.com/greenlight-ci/greenlight/internal/osfile"
)

// The values of --state-mismatch.
const (
	mismatchError   = "error"
	mismatchRecheck = "recheck"
)

// stateFlags are check's --state and --state-mismatch (docs/state.md): the
// checkpoint a check resumes from and leaves for the next one.
type stateFlags struct {
	path     string
	mismatch string
	// resumed is the checkpoint the check resumed from, if any.
	resumed *checker.Checkpoint
	// staged is the new checkpoint, written and synced to a temporary file
	// while the resumed check still proved the log's old part
	// (Reading.CheckpointEncoded), for write to rename over the file;
	// stagedFor is the checkpoint it holds, and stageErr why it could not
	// be written (write reports it).
	// The file is written on a goroutine of its own, so that the check's
	// goroutine meanwhile takes its share of the proof; staging is closed
	// once it is done, and nothing reads staged or stageErr before
	// (waitStage).
	staged    *atomicfile.Staged
	stagedFor *checker.Checkpoint
	stageErr  error
	staging   chan struct{}
}

func (s *stateFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.path, "state", "", "resume from the checkpoint `FILE` (decoding only what the log gained) and write the new one there after a valid check (docs/state.md)")
	fs.StringVar(&s.mismatch, "state-mismatch", mismatchError, "when the checkpoint does not fit the log or the options: `error|recheck` (exit 2, or check the whole log)")
}

// validate refuses flag values no check can use: called once the flags are
// parsed, with the log's files.
func (s *stateFlags) validate(logs []string, inputFormat string, changed bool) error {
	if s.mismatch != mismatchError && s.mismatch != mismatchRecheck {
		return usageError{fmt.Sprintf("--state-mismatch is error or recheck, not %s", render.Terminal(s.mismatch))}
	}
	if s.path == "" {
		if changed {
			return usageError{"--state-mismatch needs --state FILE"}
		}
		return nil
	}
	if s.path == "-" {
		return usageError{"--state names the checkpoint file, which is read and then replaced: - (standard input) cannot be one; give a path"}
	}
	if inputFormat == formatOpenLineage {
		return usageError{"--state reads native event logs only, not --input-format openlineage"}
	}
	if slices.Contains(logs, "-") && s.mismatch == mismatchRecheck {
		return usageError{"--state-mismatch recheck reads the log again, which standard input cannot be: give the log's path"}
	}
	return nil
}

// check checks the log as checkInput does, resuming from the checkpoint
// file when there is one; without --state it is checkInput. A checkpoint
// that does not fit is an error, or with --state-mismatch recheck a note
// and a check of the whole log. A checkpoint file that cannot be read or
// is damaged is always an error: it is never a silent full check.
func (s *stateFlags) check(logs []string, opts checker.Options, inputFormat, progress string, env Env) (*checker.Result, error) {
	if s.path == "" {
		return checkInput(logs, opts, checker.Reading{}, inputFormat, progress, env)
	}
	whole := checker.Reading{Checkpoint: true}
	data, err := osfile.ReadFile(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// The first check: there is nothing to resume from yet.
		return checkInput(logs, opts, whole, inputFormat, progress, env)
	case err != nil:
		return nil, readError("the checkpoint", err)
	}
	cp, err := checker.ParseCheckpoint(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v (remove it to check the whole log)", render.Terminal(s.path), err)
	}
	res, err := checkInput(logs, opts, checker.Reading{Checkpoint: true, Resume: cp, CheckpointEncoded: s.stage}, inputFormat, progress, env)
	s.resumed = cp
	if err != nil {
		s.discard() // staged by a check that failed after all
	}
	var mis *checker.CheckpointError
	if errors.As(err, &mis) && !mis.Mismatch {
		// A fold state that does not decode, found once the check has
		// started: named like a checkpoint that does not parse.
		return nil, fmt.Errorf("%s: %v (remove it to check the whole log)", render.Terminal(s.path), mis)
	}
	if mis == nil {
		return res, err
	}
	if s.mismatch != mismatchRecheck {
		// The log's name in the message is raw, and so is the checkpoint's:
		// ErrorLine escapes a line that holds anything a terminal would act
		// on, once (a name escaped here would be escaped twice).
		hint := "give --state-mismatch recheck to check the whole log"
		if slices.Contains(logs, "-") {
			// recheck is refused for standard input (validate).
			hint = "remove the checkpoint, or give the log's path with --state-mismatch recheck, to check the whole log"
		}
		return nil, fmt.Errorf("%s: %v; nothing was checked (%s)", s.path, mis, hint)
	}
	fmt.Fprintf(env.Stderr, "greenlight: %s\n", ErrorLine(fmt.Errorf("%s: %v; checking the whole log", s.path, mis)))
	return checkInput(logs, opts, whole, inputFormat, progress, env)
}

// stage writes cp, a resumed check's new checkpoint, to a temporary file
// beside the checkpoint while the check still proves the log's old part
// (Reading.CheckpointEncoded), on a goroutine of its own, and returns once
// the bytes are written, before they are synced: the check's goroutine
// then takes its share of the proof while the fsync leaves the CPU idle.
// Returning at once instead, on two cores, the write shared them with two
// goroutines hashing the proof and took four times as long, and the fsync came
// after it (a Go execution trace of section 12 of bench/run.sh). write
// renames the file once the check returns cp.
func (s *stateFlags) stage(cp *checker.Checkpoint) {
	s.discard()
	s.stagedFor = cp
	done := make(chan struct{})
	written := make(chan struct{})
	s.staging = done
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				s.stageErr = fmt.Errorf("writing the checkpoint: %v", r)
			}
		}()
		s.staged, s.stageErr = atomicfile.StageThen(s.path, func(w io.Writer) error {
			_, err := cp.WriteTo(w)
			return err
		}, func() { close(written) })
	}()
	<-written
}

// waitStage waits until the checkpoint staged, if any, is written.
func (s *stateFlags) waitStage() {
	if s.staging != nil {
		<-s.staging
		s.staging = nil
	}
}

// discard removes a staged checkpoint that is not to replace the file.
func (s *stateFlags) discard() {
	s.waitStage()
	s.staged.Discard()
	s.staged, s.stagedFor, s.stageErr = nil, nil, nil
}

// commitOnly says whether writing res's checkpoint is renaming the one
// staged while the check ran: nothing of the check's state is read then.
func (s *stateFlags) commitOnly(res *checker.Result) bool {
	s.waitStage()
	return s.writesStaged(res) && s.staged != nil && s.stageErr == nil
}

// writesStaged says whether res's checkpoint is the one staged (or being
// staged) while the check ran, without waiting for its write: writing it
// then reads nothing of the check's state, whether it commits or fails.
func (s *stateFlags) writesStaged(res *checker.Result) bool {
	return s.path != "" && res.Snapshot != nil && res.Checkpoint != nil && res.Checkpoint == s.stagedFor
}

// write writes the checkpoint of a valid check atomically (like
// --snapshot), or says on standard error why there is none; the file is
// left as it was then, and stays a checkpoint of a prefix of the log.
func (s *stateFlags) write(res *checker.Result, env Env) error {
	if s.path == "" || res.Snapshot == nil {
		return nil
	}
	if res.Checkpoint == nil {
		fmt.Fprintf(env.Stderr, "greenlight: no checkpoint written (%s left as it was): %s\n", render.Terminal(s.path), res.NoCheckpoint)
		return nil
	}
	s.waitStage()
	if res.Checkpoint == s.resumed {
		s.discard()
		return nil // the log gained nothing: the file holds these bytes
	}
	var err error
	switch {
	case res.Checkpoint == s.stagedFor && s.stageErr != nil:
		err = s.stageErr
	case s.commitOnly(res):
		err = s.staged.Commit(nil, nil)
		s.staged = nil
	default:
		s.discard()
		err = atomicfile.WriteFunc(s.path, func(w io.Writer) error {
			_, err := res.Checkpoint.WriteTo(w)
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("%v; no verdict printed, since the checkpoint was not written", err)
	}
	return nil
}
