package store

import (
	"net/url"
	"regexp"
	"strings"
)

// redacted is what RedactDSN puts in place of a password.
const redacted = "xxxxx"

// passwordParam matches a password=VALUE setting, in a URL's query or a keyword/value DSN.
var passwordParam = regexp.MustCompile(`(?i)(password=)('[^']*'|[^&\s]*)`)

// RedactDSN returns dsn fit to print: the password of a URL's user information and any
// password=… setting replaced by xxxxx. A URL that does not parse has everything between
// "://" and the last "@" replaced, so a password is never printed whatever the URL's shape. A
// file path is returned as it is.
func RedactDSN(dsn string) string {
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok {
		return passwordParam.ReplaceAllString(dsn, "${1}"+redacted)
	}
	if u, err := url.Parse(dsn); err == nil && !strings.ContainsAny(rest, " \t\n") {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), redacted)
		}
		if q := u.Query(); q.Has("password") {
			q.Set("password", redacted)
			u.RawQuery = q.Encode()
		}
		return strings.Replace(u.String(), url.QueryEscape(redacted), redacted, -1)
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		rest = redacted + rest[at:]
	}
	return scheme + "://" + passwordParam.ReplaceAllString(rest, "${1}"+redacted)
}

// HasPassword reports whether dsn carries a password: in a URL's user information or as a
// password=… setting. A URL that does not parse but has user information counts as one.
func HasPassword(dsn string) bool {
	if passwordParam.MatchString(dsn) {
		return true
	}
	_, rest, ok := strings.Cut(dsn, "://")
	if !ok {
		return false
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return strings.Contains(rest, "@")
	}
	_, has := u.User.Password()
	return has
}

// secrets returns the substrings of dsn that may be a password, longest first, for scrubbing
// error texts that quote them.
func secrets(dsn string) []string {
	var out []string
	if _, rest, ok := strings.Cut(dsn, "://"); ok {
		if u, err := url.Parse(dsn); err == nil {
			// As the driver reads it: the user information's password, nothing after a '#'.
			if p, has := u.User.Password(); has && p != "" {
				out = append(out, p, url.PathEscape(p), url.QueryEscape(p))
			}
		} else if at := strings.LastIndex(rest, "@"); at > 0 {
			// Unparsable: whatever stands before the last '@' may be one.
			out = append(out, rest[:at])
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok && pw != "" {
				out = append(out, pw)
			}
		}
	}
	for _, m := range passwordParam.FindAllStringSubmatch(dsn, -1) {
		if v := strings.Trim(m[2], "'"); v != "" {
			out = append(out, m[2], v)
		}
	}
	// Longest first, so a secret's longer quoted or escaped forms go before the bare one.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j]) > len(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// redactedError is an error whose text has the secrets of a DSN hidden; it unwraps to the
// original error.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// scrub returns err with every secret of dsn in its text replaced by xxxxx; nil for nil.
func scrub(err error, dsn string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, s := range secrets(dsn) {
		msg = strings.ReplaceAll(msg, s, redacted)
	}
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}
