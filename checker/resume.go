package checker

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
	"github.com/greenlight-ci/greenlight/checker/internal/proof"
	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// This file is the only code of the read loop (logfiles.go) that knows a
// checkpoint exists (docs/state.md, docs/architecture.md "--state"). The
// loop asks a *resumption four things, in this order:
//
//   - startResume: does the checkpoint fit the options and the files
//     (fits)? Its fold state then loads on another goroutine (load).
//   - per file, open, wrap and skip: where the file's bytes to decode
//     start, and the part the checkpoint read, proven rather than decoded
//     (prove): re-hashed for an earlier file or a compressed one, proven
//     piece by piece at offsets for the last file (checker/internal/proof)
//     while the new bytes are decoded; record, once the file is read,
//     where the check stopped in it.
//   - next: the checkpoint the check leaves for the next one.
//   - settle, as CheckFiles returns: the proof's finding, a misfit being
//     the check's error.
//
// The checkpoint's format is checkpoint.go's; the fold state's,
// checkpoint_fold.go's and checkpoint_window.go's.

// resumption is the checkpoint side of one CheckFiles: the checkpoint it
// resumes from (cp, nil for a check of the whole log) and whether it writes
// one (write). Without either every method does nothing.
type resumption struct {
	cp    *Checkpoint
	write bool
	// oneFile says the log has one file: its text's digest is the log's.
	oneFile bool
	newHash func() hash.Hash
	// pieceSize is the proof piece of the checkpoint written.
	pieceSize int64
	// encoded is Reading.CheckpointEncoded.
	encoded func(*Checkpoint)
	// waitFold waits for the fold state's load; foldDone is closed once
	// it is done.
	waitFold func() error
	foldDone <-chan struct{}
	// prf is the proof of the last file cp read, when it is read at its
	// offset (open); nil otherwise.
	prf *fileProof
	// The file being read: at says it is read from cp's offset on (open);
	// text is the digest of its text the checkpoint keeps, and pc its
	// proof pieces (wrap).
	at   bool
	text hash.Hash
	pc   *proof.Pieces
	// read is where the check stopped in each file read so far (record).
	read []checkpointFile
}

// startResume begins the checkpoint side of a check of files into the log
// digest h (nil when the log is not hashed): with rd.Resume it checks
// that the checkpoint fits (a *CheckpointError with Mismatch when not) and starts
// loading its fold state into c.
func (c *contractState) startResume(files []LogFile, rd Reading, h hash.Hash) (*resumption, error) {
	rs := &resumption{cp: rd.Resume, write: rd.Checkpoint, oneFile: len(files) == 1, newHash: rd.newSHA256,
		pieceSize: rd.pieceBytes(), encoded: rd.CheckpointEncoded, waitFold: func() error { return nil }}
	if rs.cp == nil && !rs.write {
		return rs, nil
	}
	if h == nil {
		return nil, errors.New("checker: a checkpoint needs the log's SHA-256 computed by CheckFiles, not Reading.SHA256")
	}
	if rs.cp != nil {
		if err := c.fits(rs.cp, files); err != nil {
			return nil, err
		}
		rs.waitFold, rs.foldDone = c.startFold(rs.cp)
	}
	return rs, nil
}

// open returns the bytes of file i still to read and the offset in its text
// they start at: f.R from its start, except for the last file cp read when
// it can be read at an offset (LogFile.At, a file stored as read), which is
// read from cp's offset on while other goroutines prove the part before it
// (verifyAt).
func (rs *resumption) open(i int, f LogFile) (io.Reader, int64) {
	rs.at = rs.cp != nil && i == len(rs.cp.files)-1 && f.At != nil && f.Stored == nil
	if !rs.at {
		return f.R, 0
	}
	want := rs.cp.files[i]
	// The proof reads the part of the last piece before the offset into
	// pc: the next checkpoint's pieces go on from there.
	rs.pc = resumePieces(want)
	rs.prf = verifyAt(rs.cp, i, f, rs.oneFile, rs.pc)
	return io.NewSectionReader(f.At, want.Offset, math.MaxInt64-want.Offset), want.Offset
}

// wrap returns r with the hashing a checkpoint needs of file f's text: its
// digest (the log's own, h, in a log of one file; own, the file's digest,
// for a file stored as read; a digest of its own for a compressed one),
// and, for a checkpoint written, the digests of its proof pieces.
func (rs *resumption) wrap(i int, f LogFile, r io.Reader, own, h hash.Hash) io.Reader {
	rs.text = own
	switch {
	case rs.oneFile:
		rs.text = h
	case f.Stored != nil && (rs.write || rs.cp != nil):
		rs.text = rs.newHash()
		r = eventline.HashingReader(r, rs.text)
	}
	if !rs.write {
		return r
	}
	// A file the checkpoint read goes on from its whole pieces, after the
	// part of its last piece read again.
	skip := int64(0)
	switch {
	case rs.at:
		// open's proof reads the last piece's bytes before the offset
	case rs.cp != nil && i < len(rs.cp.files):
		rs.pc = resumePieces(rs.cp.files[i])
		skip = wholeBytes(rs.cp.files[i])
	default:
		rs.pc = proof.New(rs.pieceSize)
	}
	return proof.Feed(r, rs.pc, skip)
}

// skipped is the part of a file a checkpoint read: its lines, whether it
// read any of its bytes (so that the file's start is not sniffed again),
// and whether it read the whole file (an earlier file, which must not have
// grown).
type skipped struct {
	lines int
	some  bool
	whole bool
}

// skip proves the part of file i that cp read, without decoding it:
// resumeFile reads it from r (hashed as wrap set up), or, for a file read
// at its offset, resumeAt takes the digest states and the proof goes on on
// other goroutines. At cp's last file the fold state has loaded when skip
// returns. A misfit is a *CheckpointError with Mismatch, a damaged fold
// state one without.
func (rs *resumption) skip(c *contractState, i int, f LogFile, r *tailReader, h hash.Hash) (skipped, error) {
	if rs.cp == nil || i >= len(rs.cp.files) {
		return skipped{}, nil
	}
	want, last := rs.cp.files[i], i == len(rs.cp.files)-1
	var err error
	if rs.at {
		if err = c.resumeAt(rs.cp, i, rs.text, h, rs.prf.wait); err == nil {
			// The check's goroutine hashes pieces while the fold state
			// loads, and one goroutine more hashes them once it has.
			rs.prf.HashUntil(rs.foldDone)
		}
	} else {
		err = c.resumeFile(rs.cp, i, f, r, rs.text, h)
	}
	if err != nil || last {
		// A damaged fold state is never a mismatch to recheck.
		if err := rs.waitFold(); err != nil {
			return skipped{}, err
		}
	}
	if err != nil {
		return skipped{}, err
	}
	if last {
		c.locateWarnings()
	}
	return skipped{lines: want.Lines, some: want.Offset > 0, whole: !last}, nil
}

// record keeps where the check stopped in the file just read, for the next
// checkpoint: its text's offset and lines, and its digest state and pieces.
func (rs *resumption) record(path, compression string, offset int64, lines int) error {
	if !rs.write {
		return nil
	}
	state, err := hashState(rs.text)
	if err != nil {
		return err
	}
	rs.read = append(rs.read, checkpointFile{File: path, Compression: compression, Offset: offset, Lines: lines, hashState: state,
		pieceSize: rs.pc.Size(), pieceSums: rs.pc.Sums(), pieceTail: rs.pc.TailSum()})
	return nil
}

// settle waits for the proof of the last file's part the checkpoint read,
// when one runs: nothing is returned before it, and a misfit it finds is
// the check's error (*err, with *res nil), unless the fold state is damaged
// (a damaged checkpoint is never a mismatch to recheck).
func (rs *resumption) settle(res **Result, err *error) {
	if rs == nil || rs.prf == nil {
		return
	}
	var damage *CheckpointError
	if verr := rs.prf.wait(); verr != nil && !errors.As(*err, &damage) {
		*res, *err = nil, verr
	}
}

// next is the checkpoint a valid check leaves (checkpointOf), nil without
// Reading.Checkpoint; h is the log's digest, and newline says the last file
// read ends with one. A checkpoint built while the old part is still being
// proven is encoded at once, and handed to Reading.CheckpointEncoded: the
// shell may write it meanwhile, and while the snapshot is built (it reads
// only the encoded bytes, and the old checkpoint's, which nothing changes),
// so that its fsync ends with the proof, not after it.
func (rs *resumption) next(c *contractState, h hash.Hash, newline bool) (*Checkpoint, string, error) {
	if !rs.write {
		return nil, "", nil
	}
	cp, why, err := c.checkpointOf(rs.cp, rs.read, h, newline)
	if err != nil || cp == nil || rs.prf == nil || cp == rs.cp {
		return cp, why, err
	}
	if cp.encoded, err = cp.encode(); err != nil {
		return nil, "", err
	}
	if rs.encoded != nil {
		rs.encoded(cp)
	}
	return cp, "", nil
}

// fits checks what of cp can be checked before any file is read: the
// options it was written under, its latest event against now, and that
// the log still has as many files as cp read. A misfit is a
// *CheckpointError with Mismatch.
func (c *contractState) fits(cp *Checkpoint, files []LogFile) error {
	last := cp.files[len(cp.files)-1]
	mismatch := func(format string, args ...any) error {
		return &CheckpointError{Mismatch: true, File: c.opts.File, Offset: last.Offset, Reason: fmt.Sprintf(format, args...)}
	}
	settings, err := settingsOf(c.opts)
	if err != nil {
		return err
	}
	if cp.settings.tool != settings.tool {
		return mismatch("it was written by greenlight %s, and this is greenlight %s", cp.settings.tool, settings.tool)
	}
	if what := cp.settings.differs(settings); what != "" {
		return mismatch("it was written under other options: %s differs", what)
	}
	if cp.maxEvent.After(c.horizon) {
		return mismatch("it holds an event at %s, after --now %s plus the %d s clock skew (a full check would find it in the future)",
			formatTime(cp.maxEvent), formatTime(c.opts.Now), int64(c.skew/time.Second))
	}
	if len(files) < len(cp.files) {
		// Named by the first file the log lacks now, at its own offset
		// (the names are as the checkpoint's check gave them).
		gone := cp.files[len(files)]
		return &CheckpointError{Mismatch: true, File: gone.File, Offset: gone.Offset,
			Reason: fmt.Sprintf("it read %d files, and the log has %d now (rotated away)", len(cp.files), len(files))}
	}
	return nil
}

// startFold decodes cp's fold state into c on another goroutine, while the
// files' prefixes are hashed, and returns the function that waits for it
// (any number of times) and a channel closed once it is done. Nothing but
// the decoding touches c's fold state until it has been waited for.
func (c *contractState) startFold(cp *Checkpoint) (wait func() error, done <-chan struct{}) {
	return backgroundDone(func() error { return c.decodeFold(cp.fold) })
}

// backgroundDone runs f on a goroutine of its own and returns the
// function that waits for it and gives its error, any number of times,
// and a channel closed once f has returned.
func backgroundDone(f func() error) (wait func() error, done <-chan struct{}) {
	finished := make(chan struct{})
	var err error
	go func() {
		defer close(finished)
		err = f()
	}()
	return func() error {
		<-finished
		return err
	}, finished
}

// resumeFile verifies that file i of the log starts with the text cp's
// file i held, reading it from r at hash speed, without decoding: into
// text, the file's own digest of its text, which r feeds as it is read, or
// which is h itself in a log of one file. The text proves the file, stored
// as read or compressed, whichever it was for cp. A file before cp's last
// must also have ended there. At cp's last file, the log's digest h takes
// cp's state of it. A misfit is a *CheckpointError with Mismatch naming the file. The
// file's name is not compared: every output names the file as given now.
func (c *contractState) resumeFile(cp *Checkpoint, i int, f LogFile, r *tailReader, text, h hash.Hash) error {
	want := cp.files[i]
	mismatch := func(format string, args ...any) error {
		return &CheckpointError{Mismatch: true, File: f.Path, Offset: want.Offset, Reason: fmt.Sprintf(format, args...)}
	}
	sink := io.Discard // r hashes into text as it is read
	if text == h {
		sink = h
	}
	n, err := io.CopyBuffer(sink, io.LimitReader(r, want.Offset), make([]byte, 1<<20))
	var broken brokenStream
	var after error // the text broke off right where the checkpoint stopped
	if n == want.Offset && errors.As(err, &broken) {
		after, err = err, nil
	}
	if err := provePrefix(want, f, n, err, text, text == h); err != nil {
		return err
	}
	if i < len(cp.files)-1 {
		var b [1]byte
		if after != nil {
			return mismatch("its text breaks off after %d bytes: %s", want.Offset, broken.BrokenStream())
		}
		if n, err := io.ReadFull(r, b[:]); n > 0 {
			return mismatch("the file grew after the checkpoint, and only the last file it read may (the log's later lines would move)")
		} else if err != nil && err != io.EOF {
			if errors.As(err, &broken) {
				return mismatch("its text breaks off after %d bytes: %s", want.Offset, broken.BrokenStream())
			}
			return fmt.Errorf("reading %s: %w", displayFile(f.Path), err)
		}
		return nil
	}
	if text != h {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(cp.logHash); err != nil {
			return damaged("its log digest state: " + err.Error())
		}
	}
	c.events = cp.events
	// A compressed file's next member or frame, cut short or corrupt:
	// the prefix is whole, and the broken stream is the new part's
	// invalid_json, as in a full check, whether or not the file's
	// reader would return its error again.
	r.err = after
	return nil
}

// provePrefix judges what reading the first want.Offset bytes of the text
// of file f gave: n bytes, the read error err, and text, the digest they
// went to (the log's own when oneFile). A misfit is a *CheckpointError with Mismatch
// naming the file. It touches no check state, so that verifyAt may call
// it on a goroutine of its own.
func provePrefix(want checkpointFile, f LogFile, n int64, err error, text hash.Hash, oneFile bool) error {
	mismatch := func(format string, args ...any) error {
		return &CheckpointError{Mismatch: true, File: f.Path, Offset: want.Offset, Reason: fmt.Sprintf(format, args...)}
	}
	var broken brokenStream
	if errors.As(err, &broken) {
		return mismatch("its text breaks off after %d bytes: %s", n, broken.BrokenStream())
	} else if err != nil {
		return fmt.Errorf("reading %s: %w", displayFile(f.Path), err)
	}
	if n < want.Offset {
		what := "the log"
		if !oneFile {
			what = "the file"
		}
		return mismatch("%s has only %d bytes (truncated, or rotated away)", what, n)
	}
	state, err := hashState(text)
	if err != nil {
		return err
	}
	if !bytes.Equal(state, want.hashState) {
		return mismatch("its first %d bytes are not the ones the checkpoint read (rewritten, or rotated)", want.Offset)
	}
	return nil
}

// verifyAt starts proving, on goroutines of their own, that file i of the
// log, the last one cp read, starts with the text cp's file i held,
// reading its whole pieces from f.At on every core but one (startProof)
// while it reads the rest into pc (proveTail, resumed from cp's pieces:
// the next checkpoint's last piece goes on from there); it returns the
// function that waits for the proof (any number of times), which is
// resumeFile's: the first call hashes the pieces no goroutine has taken
// yet. Meanwhile
// resumeAt lets the check go on from where cp stopped: the new bytes are
// decoded, and the state they give judged, while the old ones are hashed.
// oneFile says the log has no other file.
func verifyAt(cp *Checkpoint, i int, f LogFile, oneFile bool, pc *proof.Pieces) *fileProof {
	want := cp.files[i]
	p := &fileProof{Proof: proof.Start(f.At, want.pieceSize, want.pieceSums), want: want, f: f, oneFile: oneFile}
	// The whole pieces are hashed meanwhile; the bytes after them are read
	// into pc here, for the next checkpoint's last piece.
	from := wholeBytes(want)
	p.SetTail(proof.Tail(f.At, from, want.Offset-from, want.pieceTail, pc))
	return p
}

// resumeAt gives text, the digest of file i's own text (h itself in a log
// of one file), and h, the log's, the states cp holds after the text of
// file i it read, the last file cp read, as if the check had read it
// (verifyAt proves it did not need to).
// A state that cannot be taken is verify's misfit, as resumeFile would
// find it, or else a damaged checkpoint.
func (c *contractState) resumeAt(cp *Checkpoint, i int, text, h hash.Hash, verify func() error) error {
	take := func(d hash.Hash, state []byte, what string) error {
		err := d.(encoding.BinaryUnmarshaler).UnmarshalBinary(state)
		if err == nil {
			return nil
		}
		if verr := verify(); verr != nil {
			return verr
		}
		return damaged(what + ": " + err.Error())
	}
	if err := take(text, cp.files[i].hashState, "its digest state of a file"); err != nil {
		return err
	}
	if text != h {
		if err := take(h, cp.logHash, "its log digest state"); err != nil {
			return err
		}
	}
	c.events = cp.events
	return nil
}

// sameFiles tells whether the files of a and b, in order, have the same
// names and are stored alike (compressed the same way): the checkpoint
// keeps both, so a log renamed since, or compressed, needs a new one.
func sameFiles(a, b []checkpointFile) bool {
	for i := range a {
		if a[i].File != b[i].File || a[i].Compression != b[i].Compression {
			return false
		}
	}
	return true
}

// hashState is h's crypto/sha256 digest state.
func hashState(h hash.Hash) ([]byte, error) {
	return h.(encoding.BinaryMarshaler).MarshalBinary()
}

// locateWarnings turns the lines of the retry-brake warnings a checkpoint
// held, counted across the log's files as the checkpoint keeps them, into
// their file and line within it, once the files the checkpoint read are in
// c.files.
func (c *contractState) locateWarnings() {
	for i := range c.warnings {
		c.warnings[i].File, c.warnings[i].Line = c.locate(c.warnings[i].Line)
	}
}

// checkpointOf builds the checkpoint of a valid check that read the files
// read (in reading order, each with where it stopped and its digest state)
// into the log digest h; endsWithNewline tells whether the last file's
// last byte is a newline. The checkpoint is nil with the reason when the
// state cannot be resumed exactly.
//
// A check resumed from a checkpoint (r, nil for none) that read nothing
// after it gets that very checkpoint back: its bytes are the ones the
// check would write, and a shell may leave the file as it is.
func (c *contractState) checkpointOf(r *Checkpoint, read []checkpointFile, h hash.Hash, endsWithNewline bool) (cp *Checkpoint, why string, err error) {
	last := read[len(read)-1]
	if r != nil && len(read) == len(r.files) && last.Offset == r.files[len(r.files)-1].Offset && sameFiles(read, r.files) {
		return r, "", nil
	}
	if last.Offset > 0 && !endsWithNewline {
		return nil, "the log's last line has no newline, and a line may still be being written: the next check could not tell", nil
	}
	settings, err := settingsOf(c.opts)
	if err != nil {
		return nil, "", err
	}
	state, err := hashState(h)
	if err != nil {
		return nil, "", err
	}
	cp = &Checkpoint{settings: settings, events: c.events, c: c, logHash: state, files: read}
	if t := c.latestRunEvent(); t.After(cp.maxEvent) {
		cp.maxEvent = t
	}
	if w := c.window; w != nil {
		// The window's state is kept as the snapshot's sweep leaves it, so
		// that a checkpoint does not depend on when the check swept.
		c.sweepOnce()
		if w.newest.After(cp.maxEvent) {
			cp.maxEvent = w.newest
		}
	}
	return cp, "", nil
}

// latestRunEvent is the latest last event of the store's runs, zero
// without runs, read from their heads (no run is decoded).
func (c *contractState) latestRunEvent() time.Time {
	sec, nsec, ok := c.runs.LatestLast()
	if !ok {
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).UTC()
}

// resumePieces goes on hashing the text of f, a checkpoint's file, after
// its whole pieces: the bytes from there to f.Offset must be written to it
// again.
func resumePieces(f checkpointFile) *proof.Pieces { return proof.Resume(f.pieceSize, f.pieceSums) }

// wholeBytes is how many bytes of f's text its whole pieces hold.
func wholeBytes(f checkpointFile) int64 { return f.Offset / f.pieceSize * f.pieceSize }

// fileProof proves that the regular file f starts with the text of want,
// the last file a checkpoint read (proof.Proof), and words what it found.
type fileProof struct {
	*proof.Proof
	want    checkpointFile
	f       LogFile
	oneFile bool
}

// wait waits for the proof and says what it found. A read error (the
// first piece's) is returned as an error; a file shorter than want.Offset,
// or else a piece whose digest differs, is a *CheckpointError with Mismatch naming
// the file. Every piece is read first, so the finding does not depend on
// the order the pieces were hashed in.
func (p *fileProof) wait() error {
	results := p.Wait()
	want, f := p.want, p.f
	mismatch := func(format string, args ...any) error {
		return &CheckpointError{Mismatch: true, File: f.Path, Offset: want.Offset, Reason: fmt.Sprintf(format, args...)}
	}
	for _, r := range results {
		if r.Err != nil {
			return fmt.Errorf("reading %s: %w", displayFile(f.Path), r.Err)
		}
	}
	for k, r := range results {
		if from := int64(k) * want.pieceSize; r.Got < min(want.pieceSize, want.Offset-from) {
			what := "the log"
			if !p.oneFile {
				what = "the file"
			}
			return mismatch("%s has only %d bytes (truncated, or rotated away)", what, from+r.Got)
		}
	}
	for _, r := range results {
		if !r.Same {
			return mismatch("its first %d bytes are not the ones the checkpoint read (rewritten, or rotated)", want.Offset)
		}
	}
	return nil
}

// recoverDamage turns the panic of a checkpoint's run that does not decode
// when first read (*runstore.DamagedError) into *err, a damaged checkpoint;
// any other panic goes on.
func recoverDamage(err *error) {
	if r := recover(); r != nil {
		d, ok := r.(*runstore.DamagedError)
		if !ok {
			panic(r)
		}
		*err = damaged(d.Fault)
	}
}
