package emit

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/greenlight-ci/greenlight/internal/cli"
)

// RunCommand is "greenlight run --log FILE --run-id ID --stage S [flags] --
// COMMAND [ARGS...]" (docs/emit.md). Its exit code is the command's, 128
// plus the signal's number when a signal ended the command, 127 when the
// command is not found, 126 when it cannot be started, and 2 when
// greenlight refused or could not record the start (the command did not
// run) or could not record a success.
func RunCommand(args []string, env cli.Env) int {
	fs := cli.NewFlagSet("run")
	fs.SetInterspersed(false) // the command's own flags are not greenlight's
	var f Flags
	f.Register(fs, "run", "owner", "attempt_id", "lease_expires_at")
	fs.Lookup("field").Usage = "an extra field of the started event: `key=value` (a string) or key:=JSON (any JSON value, e.g. rerun_from:=true); repeatable"
	heartbeat := cli.AddRangedInt(fs, "heartbeat-seconds", DefaultHeartbeatSeconds, 1, MaxHeartbeatSeconds, "`seconds` between heartbeats while the command runs")
	lease := cli.AddRangedInt(fs, "lease-seconds", 0, 1, MaxLeaseSeconds, "how many `seconds` past each started or heartbeat event the lease reaches (default 3 × --heartbeat-seconds); at least --heartbeat-seconds")
	if err := cli.ParseFlags(fs, args, env); err != nil {
		return Failed(env, err)
	}
	if fs.NArg() == 0 {
		return Failed(env, errors.New("run needs the command to run after its flags: greenlight run --log FILE --run-id ID --stage S -- COMMAND [ARGS...]"))
	}
	hb, err := heartbeat.Value()
	if err != nil {
		return Failed(env, err)
	}
	ls := LeaseFactor * hb
	if lease.Changed() {
		if ls, err = lease.Value(); err != nil {
			return Failed(env, err)
		}
		if ls < hb {
			return Failed(env, fmt.Errorf("--lease-seconds %d is shorter than --heartbeat-seconds %d: the lease would lapse between heartbeats", ls, hb))
		}
	}
	log, ev, err := f.Resolve(env.Now)
	if err != nil {
		return Failed(env, err)
	}
	stdin := env.Stdin
	if stdin == nil {
		stdin = os.Stdin
	}
	return Run(Config{
		Log:       log,
		Event:     ev,
		Heartbeat: time.Duration(hb) * time.Second,
		Lease:     time.Duration(ls) * time.Second,
		Args:      fs.Args(),
		Owner:     Owner(),
		AttemptID: NewAttemptID(),
		Stdin:     stdin,
		Stdout:    env.Stdout,
		Stderr:    env.Stderr,
	})
}
