package cli

import (
	"io"

	"github.com/greenlight-ci/greenlight/internal/logsource"
	"github.com/greenlight-ci/greenlight/internal/osfile"
)

// LogArgs turns a command's event-log arguments into the files of one log
// the way check does, for the commands outside this package (view and
// report, internal/viewcmd): globs, quoted or not, expanded; the files put
// in order (logsource.OrderGiven or logsource.OrderName, --log-order); a
// file named twice read once; "-" at most once. name is the log's name in
// messages and in the snapshot's source.path: its file, or for several the
// arguments as given.
func LogArgs(args []string, order string) (files []string, name string, err error) {
	c := common{logOrder: order}
	if files, err = c.logFiles(args); err != nil {
		return nil, "", err
	}
	return files, logName(args, files), nil
}

// OpenLog opens the files of a log for the checker as check does
// (logsource.Open: gzip and zstd decompressed, a file under a second name
// read once); a file that cannot be opened is check's "cannot read the
// event log: ..." error. The caller closes the files (logsource.CloseAll).
func OpenLog(files []string, stdin io.Reader) ([]*logsource.File, error) {
	return logsource.Open(files, stdin, osfile.Open, func(err error) error { return readError("the event log", err) })
}
