package proc

// PID returns the process id of the program under test, so that a check can
// look at it from outside (such as its open files, on Linux).
func (p *Process) PID() int { return p.cmd.Process.Pid }
