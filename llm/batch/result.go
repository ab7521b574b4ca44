package batch

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/vectorlint/vectorlint/llm/internal/batchwire"
)

// parseResultLine reads one line of a batch's results: OpenAI's {custom_id, response:
// {status_code, body}, error} (output and error files alike) or Anthropic's {custom_id,
// result: {type: succeeded|errored|expired|canceled, message|error}}. It returns the custom
// id and the outcome; a line without a custom id, or not of the shape, is an error saying what
// was expected and found.
func parseResultLine(wire string, line []byte) (string, outcome, error) {
	if wire == batchwire.WireAnthropic {
		return parseAnthropicLine(line)
	}
	return parseOpenAILine(line)
}

func parseOpenAILine(line []byte) (string, outcome, error) {
	var l struct {
		CustomID string `json:"custom_id"`
		Response *struct {
			StatusCode int             `json:"status_code"`
			Body       json.RawMessage `json:"body"`
		} `json:"response"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		return "", outcome{}, fmt.Errorf("expected a JSON object, found %s", found(line, err))
	}
	if l.CustomID == "" {
		return "", outcome{}, errors.New("expected a custom_id, found none")
	}
	switch {
	case l.Error != nil:
		return l.CustomID, outcome{expired: l.Error.Code == "batch_expired" || l.Error.Code == "batch_cancelled",
			reason: strings.TrimSpace(l.Error.Code + ": " + l.Error.Message)}, nil
	case l.Response == nil:
		return "", outcome{}, errors.New("expected a response or an error, found neither")
	case l.Response.StatusCode == 200:
		if len(l.Response.Body) == 0 || string(l.Response.Body) == "null" {
			return "", outcome{}, errors.New("expected the response's body, found none")
		}
		return l.CustomID, outcome{ok: true, body: l.Response.Body}, nil
	}
	return l.CustomID, outcome{reason: fmt.Sprintf("HTTP %d: %s", l.Response.StatusCode, errorText(l.Response.Body))}, nil
}

func parseAnthropicLine(line []byte) (string, outcome, error) {
	var l struct {
		CustomID string `json:"custom_id"`
		Result   *struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
			Error   json.RawMessage `json:"error"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		return "", outcome{}, fmt.Errorf("expected a JSON object, found %s", found(line, err))
	}
	if l.CustomID == "" {
		return "", outcome{}, errors.New("expected a custom_id, found none")
	}
	if l.Result == nil {
		return "", outcome{}, errors.New("expected a result, found none")
	}
	switch l.Result.Type {
	case "succeeded":
		if len(l.Result.Message) == 0 || string(l.Result.Message) == "null" {
			return "", outcome{}, errors.New("expected the succeeded result's message, found none")
		}
		return l.CustomID, outcome{ok: true, body: l.Result.Message}, nil
	case "errored":
		// {"type":"error","error":{"type":…,"message":…}}: errorText reads the inner error.
		var inner struct {
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(l.Result.Error, &inner)
		reason := strings.TrimSpace(inner.Error.Type + ": " + inner.Error.Message)
		if inner.Error.Message == "" {
			reason = "errored: " + errorText(l.Result.Error)
		}
		return l.CustomID, outcome{reason: reason}, nil
	case "expired":
		return l.CustomID, outcome{expired: true, reason: "the batch expired before this request was made"}, nil
	case "canceled":
		return l.CustomID, outcome{expired: true, reason: "the batch was canceled before this request was made"}, nil
	}
	return "", outcome{}, fmt.Errorf("expected a result of type succeeded, errored, expired or canceled, found %q", clip(l.Result.Type))
}

// found describes a line that is not JSON.
func found(line []byte, err error) string {
	return fmt.Sprintf("%q (%v)", clip(string(line)), err)
}
