package load

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// clockTick is the unit of the CPU times in /proc/PID/stat (USER_HZ), 100
// per second on every Linux this runs on.
const clockTick = 10 * time.Millisecond

// CPUTime returns the CPU time, user and system, that process pid and all
// its threads have used.
func CPUTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: count fields from
	// after its closing parenthesis. utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	utime, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	stime, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad utime or stime", pid)
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// SelfCPUTime returns the CPU time this process has used.
func SelfCPUTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// RSS returns the resident memory of process pid, in bytes.
func RSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
}

// Threads returns how many threads process pid runs.
func Threads(pid int) int {
	entries, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	return len(entries)
}

// MachineCPU returns the CPU time every process of the machine has used
// since boot (from /proc/stat: user, nice, system, irq, softirq, steal).
// Less what the server and the load generator used, it tells how busy the
// rest of the machine was during a measurement.
func MachineCPU() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	f := bytes.Fields(line)
	var ticks int64
	for i, v := range f {
		if i == 0 || i == 4 || i == 5 || i > 8 { // the label, idle, iowait, guest
			continue
		}
		n, _ := strconv.ParseInt(string(v), 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * clockTick
}

// LoadAverage returns the machine's 1-minute load average.
func LoadAverage() float64 {
	data, _ := os.ReadFile("/proc/loadavg")
	f := bytes.Fields(data)
	if len(f) == 0 {
		return -1
	}
	v, _ := strconv.ParseFloat(string(f[0]), 64)
	return v
}
