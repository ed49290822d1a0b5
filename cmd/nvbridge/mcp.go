package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/sys/unix"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/rawio"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/tools"
)

const mcpUsage = `usage: nvbridge [global flags] mcp [--http ADDR] [--token T | --no-auth] [--allow-remote] [--max-request-bytes N] [--mode M] [--read-only] [--cpuprofile FILE]

Serves every tool over MCP: on stdio by default, or streamable HTTP at
http://ADDR/mcp with a bearer token (printed to stderr unless given).
--mode shows only some tools (explore: read-only ones; edit: adds editing
and refactoring; debug: adds debugging; all); the set_mode tool switches
within it, never wider: the start mode is a ceiling.
--read-only refuses every tool that writes, even called by name.
`

func runMCP(ctx context.Context, g globalFlags, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	g.register(fs)
	httpAddr := fs.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio")
	token := fs.String("token", os.Getenv("NVBRIDGE_TOKEN"), "bearer token HTTP clients must send (default $NVBRIDGE_TOKEN, else a random one printed to stderr)")
	noAuth := fs.Bool("no-auth", false, "serve HTTP without a token (only on loopback)")
	allowRemote := fs.Bool("allow-remote", false, "allow --http on a non-loopback address (a token is then mandatory)")
	maxRequest := fs.Int64("max-request-bytes", defaultMaxRequestBytes, "refuse a request (an HTTP body, a stdio line) larger than this many bytes")
	mode := fs.String("mode", tools.ModeAll, "tools shown: explore (read-only), edit (adds editing and refactoring), debug (adds debugging), all; set_mode may not go wider")
	readOnly := fs.Bool("read-only", false, "refuse every tool that changes buffers or files, even when called by name")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process to this file while it serves (where nvbridge's own time goes; go tool pprof reads it)")
	rest, code, ok := parseFlags(fs, args, mcpUsage, stdout, stderr)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "nvbridge mcp: unexpected argument %q\n", rest[0])
		return 2
	}
	modes, err := tools.NewModes(*mode, *readOnly)
	if err != nil {
		fmt.Fprintf(stderr, "nvbridge: --mode: %v\n", apierr.As(err).Message)
		return 2
	}
	if *maxRequest < 1024 {
		fmt.Fprintf(stderr, "nvbridge: --max-request-bytes %d is too small (at least 1024)\n", *maxRequest)
		return 2
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "nvbridge: --cpuprofile: %v\n", err)
			return 1
		}
		defer stop()
	}
	logger, closeLog, err := openLog(g.logFile, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return 1
	}
	defer closeLog()
	// Check and bind the HTTP address before starting Neovim: a refused or
	// busy address fails fast and starts nothing.
	var ln net.Listener
	if *httpAddr != "" {
		var code int
		if ln, code = listenHTTP(*httpAddr, *noAuth, *allowRemote, stderr); ln == nil {
			return code
		}
		defer ln.Close()
	}
	env, closeEnv, err := connect(ctx, g, logger)
	if err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return 1
	}
	defer closeEnv()
	env.Modes = modes
	srv := tools.NewServer(env, version)
	defer tools.Farewell(env) // before closeEnv: Neovim still listens
	transport := "stdio"
	if ln != nil {
		transport = "http " + ln.Addr().String()
	}
	if err := tools.AnnounceAgent(ctx, env, transport); err != nil {
		logger.Printf("announce to Neovim: %v", err)
	}

	// The session ending (Neovim quit) ends the server too.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	neovimGone := make(chan struct{})
	safego.Go("the Neovim watcher", func() {
		select {
		case <-env.Session.Done():
			logger.Printf("Neovim closed the connection; stopping")
			close(neovimGone)
			cancel()
		case <-ctx.Done():
		}
	}, nil)
	code = 0
	if ln == nil {
		stdioProcs()
		out, restoreOut := polledStdout(stdout)
		defer restoreOut()
		stdio := newStdioServer(srv, out, int(*maxRequest), logger)
		inFlight := stdio.inFlight()
		// A signal (or Neovim leaving) stops the server once the calls in
		// flight have answered: a change being applied finishes and says
		// what it did, rather than being cut off mid-way (bounded).
		listenCtx, stopListening := context.WithCancel(context.WithoutCancel(ctx))
		defer stopListening()
		safego.Go("the stdio shutdown", func() {
			select {
			case <-ctx.Done():
				drain, cancelDrain := context.WithTimeout(context.Background(), shutdownDrain)
				inFlight.waitIdle(drain)
				cancelDrain()
				stopListening()
			case <-listenCtx.Done():
			}
		}, nil)
		in, restore := polledStdin()
		defer restore()
		err := stdio.Listen(listenCtx, rawio.NewReader(in))
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			logger.Printf("stdio: %v", err)
			code = 1
		}
	} else {
		code = serveHTTP(ctx, srv, ln, *token, *noAuth, *maxRequest, logger, stderr)
	}
	select {
	case <-neovimGone:
		if env.Session.StoppedByUser() {
			return code // the user stopped it (:NvbridgeStop): not a failure
		}
		return 1
	default:
		return code
	}
}

// stdioProcs gives the scheduler one P more than it chose (the number of
// cores) while nvbridge serves stdio, unless the user set GOMAXPROCS.
//
// Stdin that is not a pipe or a socket (a terminal, a file) is read in
// blocking mode (polledStdin): the goroutine waiting for the next
// request keeps a thread in read(2) and, with it, a P in its system call.
// While a call runs on the other P (of two cores), none is idle, so the
// runtime's monitor (sysmon) takes the reading P back, and each time it
// does it starts polling again every 20 µs for a millisecond and more
// instead of the 10 ms it had backed off to: on two cores, half of a read
// tool's context switches (8 to 10 of 16 to 18) were sysmon's, and a
// context switch costs microseconds in a virtual machine. With a P to
// spare a call leaves one idle: sysmon stays backed off. Once a process
// (a test may serve stdio several times in one).
func stdioProcs() { stdioProcsOnce.Do(spareProc) }

var stdioProcsOnce sync.Once

func spareProc() {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
}

// polledStdin is stdin for the stdio server: when it is a pipe or a
// socket (as MCP clients start a server), put in non-blocking mode and read
// through the runtime's poller; anything else (a terminal, a file) as
// os.Stdin reads it. restore puts the blocking mode back (the mode belongs
// to the open file, which other processes may share).
//
// Read in blocking mode, the goroutine waiting for the next request keeps
// a thread in read(2), which the runtime's monitor (sysmon) takes its P
// from once the wait passes 10 ms, and each such take, as each wake from
// a fully idle process, sets sysmon polling every 20 µs again for a
// millisecond and more: between an agent's calls (spaced by its thinking,
// not back to back) that was 44 of the 53 context switches of a warm
// find_definition, and most of its 2.2 ms of CPU. Waiting in the poller, a
// process idle between calls holds no thread in a system call and sysmon
// sleeps until it is needed (readsab -gap 50ms: Go CPU 2.18 → 0.80 ms a
// definition). Calls back to back paid a little for it (Go CPU +0.03 to
// +0.07 ms a call, wall unchanged): sysmon, asleep while a call waits for
// Neovim, was woken by the next system call and polled fast again. The
// pipes are now read and written with raw system calls (runMCP wraps
// stdin in rawio; polledStdout; the session's pipes to Neovim), which do
// not wake it: what still does is a read's file-system calls (its
// target's confinement and line), at the start of the call.
func polledStdin() (in *os.File, restore func()) {
	var st unix.Stat_t
	if unix.Fstat(0, &st) != nil || (st.Mode&unix.S_IFMT != unix.S_IFIFO && st.Mode&unix.S_IFMT != unix.S_IFSOCK) {
		return os.Stdin, func() {}
	}
	if syscall.SetNonblock(0, true) != nil {
		return os.Stdin, func() {}
	}
	// Kept for the life of the process: a collected File closes its
	// descriptor, and 0 is os.Stdin's too.
	polled.Do(func() { polledIn = os.NewFile(0, "/dev/stdin") })
	return polledIn, func() { _ = syscall.SetNonblock(0, false) }
}

var (
	polled   sync.Once
	polledIn *os.File
)

// polledStdout is stdout for the stdio server, as polledStdin is stdin:
// when stdout is os.Stdout and a pipe or a socket, put in non-blocking mode
// and written with raw write(2) calls (rawio), waiting in the poller when
// the pipe is full; anything else as it is. restore puts the blocking mode
// back.
//
// An answer's write was the last system call of a call made the ordinary
// way: the first after the wait for Neovim, it woke sysmon, which then
// polled every 20 µs through the rest of the call.
//
// One difference from os.Stdout: a write to a stdout whose reader is gone
// fails with EPIPE (logged; the session ends when stdin does, as it does
// when the client goes), where os.Stdout's raised SIGPIPE and ended the
// process on the spot, Neovim's cleanup and stdin's mode left undone.
func polledStdout(stdout io.Writer) (out io.Writer, restore func()) {
	if stdout != io.Writer(os.Stdout) {
		return stdout, func() {}
	}
	var st unix.Stat_t
	if unix.Fstat(1, &st) != nil || (st.Mode&unix.S_IFMT != unix.S_IFIFO && st.Mode&unix.S_IFMT != unix.S_IFSOCK) {
		return stdout, func() {}
	}
	if syscall.SetNonblock(1, true) != nil {
		return stdout, func() {}
	}
	// Kept for the life of the process, as polledIn.
	polledOutOnce.Do(func() { polledOut = os.NewFile(1, "/dev/stdout") })
	return rawio.NewWriter(polledOut), func() { _ = syscall.SetNonblock(1, false) }
}

var (
	polledOutOnce sync.Once
	polledOut     *os.File
)

// startCPUProfile profiles the process into path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// shutdownDrain bounds how long a stopping server waits for the calls in
// flight to answer.
const shutdownDrain = 30 * time.Second

// listenHTTP validates the address and auth flags and binds the address;
// on failure it returns a nil listener and the exit code.
func listenHTTP(addr string, noAuth, allowRemote bool, stderr io.Writer) (net.Listener, int) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		fmt.Fprintf(stderr, "nvbridge: --http %q: %v\n", addr, err)
		return nil, 2
	}
	loopback := isLoopback(host)
	if !loopback && !allowRemote {
		fmt.Fprintf(stderr, "nvbridge: refusing to listen on %s: not a loopback address (pass --allow-remote to insist)\n", host)
		return nil, 2
	}
	if noAuth && !loopback {
		fmt.Fprintln(stderr, "nvbridge: --no-auth is only allowed on a loopback address")
		return nil, 2
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return nil, 1
	}
	return ln, 0
}

func serveHTTP(ctx context.Context, srv *server.MCPServer, ln net.Listener, token string, noAuth bool, maxRequest int64, logger *log.Logger, stderr io.Writer) int {
	if !noAuth && token == "" {
		token = randomToken()
		fmt.Fprintf(stderr, "nvbridge: HTTP bearer token: %s\n", token)
	}
	if noAuth {
		token = ""
	}
	hs := newHTTPServer(srv, httpOptions{token: token, maxRequestBytes: maxRequest})
	// Printed once the server is ready; with port 0 this is how a caller
	// learns the port.
	fmt.Fprintf(stderr, "nvbridge: serving MCP on http://%s%s\n", ln.Addr(), mcpPath)
	safego.Go("the HTTP shutdown", func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shutdownCtx)
	}, nil)
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Printf("http: %v", err)
		return 1
	}
	return 0
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func randomToken() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b)
}

// requireToken rejects requests without "Authorization: Bearer <token>".
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(strings.TrimSpace(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="nvbridge"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
