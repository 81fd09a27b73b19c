package load

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Result is one measurement: how much was done in a window of time, how
// fast, and what it cost the server and the client.
type Result struct {
	Ops       int           // operations finished in the window (requests, sessions, events)
	Elapsed   time.Duration // the window
	ServerCPU time.Duration // CPU time the server used in the window
	ClientCPU time.Duration // CPU time the load generator used in the window
	P50, P99  time.Duration // latency of one operation
	ServerRSS int64         // the server's resident memory at the end, bytes
	OtherCPU  time.Duration // CPU time the rest of the machine used in the window
}

// PerSecond is the throughput.
func (r Result) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Ops) / r.Elapsed.Seconds()
}

// CPUPerOp is the server's CPU time per operation: the honest figure when
// the client is the bottleneck, as it often is on loopback.
func (r Result) CPUPerOp() time.Duration {
	if r.Ops == 0 {
		return 0
	}
	return r.ServerCPU / time.Duration(r.Ops)
}

// ClientBusy is the share of one core the load generator used.
func (r Result) ClientBusy() float64 { return r.ClientCPU.Seconds() / r.Elapsed.Seconds() }

// ServerBusy is the share of one core the server used.
func (r Result) ServerBusy() float64 { return r.ServerCPU.Seconds() / r.Elapsed.Seconds() }

// Window is how long a closed-loop run lasts.
type Window struct {
	Warmup   time.Duration // run, but do not count
	Duration time.Duration // count
	// Patience, when set, keeps a window that has counted nothing open a
	// little longer, until a first operation finishes: a smoke run's tiny
	// window proves the harness works, and a loaded machine may take longer
	// than the window for one operation. A measurement leaves it zero.
	Patience time.Duration
}

// A worker does one unit of work for one client of a closed loop, and says
// how many operations it finished (one request; or the events of a stream).
type worker func() (ops int, err error)

// The phases of a run: operations that finish while warming or stopping
// are not counted.
const (
	warming = iota
	counting
	stopping
)

// closedLoop runs one worker per client, each starting its next operation
// when the last one ends, and counts the operations that finish within the
// window. The first error ends the run. pid is the server's process.
func closedLoop(pid int, win Window, workers []worker) (Result, error) {
	var (
		phase    atomic.Int32
		ops      atomic.Int64
		firstErr error
		errOnce  sync.Once
		wg       sync.WaitGroup
	)
	lat := make([][]time.Duration, len(workers))
	for i, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, 4096)
			for {
				p := phase.Load()
				if p == stopping {
					break
				}
				began := time.Now()
				n, err := w()
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					phase.Store(stopping)
					break
				}
				if p == counting && phase.Load() == counting {
					mine = append(mine, time.Since(began))
					ops.Add(int64(n))
				}
			}
			lat[i] = mine
		}()
	}
	time.Sleep(win.Warmup)
	m := startMeter(pid)
	phase.CompareAndSwap(warming, counting)
	time.Sleep(win.Duration)
	for waited := time.Duration(0); ops.Load() == 0 && waited < win.Patience && phase.Load() == counting; waited += 10 * time.Millisecond {
		time.Sleep(10 * time.Millisecond)
	}
	phase.CompareAndSwap(counting, stopping)
	r := m.stop()
	wg.Wait()
	if firstErr != nil {
		return Result{}, firstErr
	}
	r.Ops = int(ops.Load())
	r.P50, r.P99 = percentiles(slices.Concat(lat...))
	r.ServerRSS, _ = RSS(pid)
	if r.Ops == 0 {
		return r, errors.New("no operation finished within the window")
	}
	return r, nil
}

// meter measures a window: its length, and the CPU time the server, this
// process and the rest of the machine used in it.
type meter struct {
	pid              int
	start            time.Time
	cpu, self, total time.Duration
}

func startMeter(pid int) *meter {
	m := &meter{pid: pid, self: SelfCPUTime(), total: MachineCPU()}
	m.cpu, _ = CPUTime(pid)
	m.start = time.Now()
	return m
}

func (m *meter) stop() Result {
	elapsed := time.Since(m.start)
	cpu, _ := CPUTime(m.pid)
	self, total := SelfCPUTime(), MachineCPU()
	r := Result{Elapsed: elapsed, ServerCPU: cpu - m.cpu, ClientCPU: self - m.self}
	r.OtherCPU = max(total-m.total-r.ServerCPU-r.ClientCPU, 0)
	return r
}

func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	slices.Sort(d)
	return d[len(d)/2], d[len(d)*99/100]
}
