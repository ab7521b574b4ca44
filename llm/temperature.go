package llm

import (
	"errors"
	"net/http"
	"strings"
)

// Models that accept no temperature but their default — OpenAI's reasoning models (o1, o3,
// gpt-5, …) — answer 400 to a request that sets one ("Unsupported value: 'temperature' does not
// support 0 with this model. Only the default (1) value is supported."). A blueprint sends 0
// when it names none (Weval's default), and a lint run sends the configured temperature, so
// such a model would fail every call. As Weval's client does, the request is sent again without
// its temperature; the client remembers the endpoint and model, so that the run's other calls
// to it leave the temperature out from the start. The cache key stays the request's own (the
// temperature asked for), so the same run finds the reply again.

// isTemperatureRejection reports whether err is a server refusing a request's temperature.
func isTemperatureRejection(err error) bool {
	var se *statusError
	if !errors.As(err, &se) || (se.status != http.StatusBadRequest && se.status != http.StatusUnprocessableEntity) {
		return false
	}
	if se.param == "temperature" {
		return true
	}
	m := strings.ToLower(se.message)
	if !strings.Contains(m, "temperature") {
		return false
	}
	for _, s := range []string{"unsupported", "not supported", "does not support", "only the default", "not allowed"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// temperatureRejected reports whether the endpoint and model behind key refused a temperature
// earlier in the run.
func (c *Client) temperatureRejected(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.noTemperature[key]
}

// rejectTemperature records that the endpoint and model behind key refuse a temperature.
func (c *Client) rejectTemperature(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.noTemperature[key] = true
}
