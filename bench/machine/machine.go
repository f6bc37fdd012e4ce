// Package machine says what the measuring tools print about the machine they ran on, so that
// a figure is never quoted without it.
package machine

import (
	"os"
	"strings"
)

// LoadAverage is /proc/loadavg's first three fields, or "unknown".
func LoadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
