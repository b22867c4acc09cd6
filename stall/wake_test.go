package stall

import (
	"testing"
	"time"
)

func TestPendingWakeReason(t *testing.T) {
	now := time.Date(2026, 9, 2, 14, 0, 0, 0, time.UTC)
	services := map[string]bool{"preview-1": true}
	tests := []struct {
		name      string
		jobs      []Job
		schedules []Schedule
		services  map[string]bool
		want      string
	}{
		{name: "nothing", want: ""},
		{name: "empty slices", jobs: []Job{}, schedules: []Schedule{}, want: ""},
		{name: "running job", jobs: []Job{{ID: "build-123", Label: "npm test", Status: "running"}},
			want: "job build-123 (npm test) is running"},
		{name: "running job without label", jobs: []Job{{ID: "j7", Status: "running"}}, want: "job j7 is running"},
		{name: "running job without id", jobs: []Job{{Label: "make", Status: "running"}}, want: "job (make) is running"},
		{name: "running job with neither", jobs: []Job{{Status: "running"}}, want: "job is running"},
		{name: "finished jobs are no gate", jobs: []Job{
			{ID: "a", Status: "exited"}, {ID: "b", Status: "failed"}, {ID: "c", Status: "killed"},
			{ID: "d", Status: "queued"}, {ID: "e", Status: ""}}, want: ""},
		{name: "status is exact", jobs: []Job{{ID: "a", Status: "Running"}, {ID: "b", Status: "running "}}, want: ""},
		{name: "preview service job is no gate", jobs: []Job{{ID: "preview-1", Label: "vite", Status: "running"}},
			services: services, want: ""},
		{name: "service skipped, ordinary job gates", jobs: []Job{
			{ID: "preview-1", Label: "vite", Status: "running"}, {ID: "build-9", Label: "static build", Status: "running"}},
			services: services, want: "job build-9 (static build) is running"},
		{name: "first running job reported", jobs: []Job{
			{ID: "done", Status: "exited"}, {ID: "first", Status: "running"}, {ID: "second", Status: "running"}},
			want: "job first is running"},
		{name: "nil service set", jobs: []Job{{ID: "preview-1", Status: "running"}}, services: nil,
			want: "job preview-1 is running"},
		{name: "future one-shot", schedules: []Schedule{{ID: "s1", Trigger: TriggerOnce, At: now.Add(time.Hour)}},
			want: "one-shot schedule s1 fires at 2026-09-02T15:00:00Z (in 1h0m0s)"},
		{name: "future one-shot in another zone reported in UTC", schedules: []Schedule{
			{ID: "s1", Trigger: TriggerOnce, At: now.Add(90 * time.Second).In(time.FixedZone("CEST", 2*3600))}},
			want: "one-shot schedule s1 fires at 2026-09-02T14:01:30Z (in 1m30s)"},
		{name: "past one-shot", schedules: []Schedule{{ID: "s1", Trigger: TriggerOnce, At: now.Add(-time.Minute)}}, want: ""},
		{name: "one-shot due now is not pending", schedules: []Schedule{{ID: "s1", Trigger: TriggerOnce, At: now}}, want: ""},
		{name: "one-shot without a time", schedules: []Schedule{{ID: "s1", Trigger: TriggerOnce}}, want: ""},
		{name: "cron is never a gate", schedules: []Schedule{{ID: "daily", Trigger: TriggerCron, At: now.Add(19 * time.Hour)}}, want: ""},
		{name: "daily report does not hide an afternoon stall", schedules: []Schedule{
			{ID: "report-0900", Trigger: TriggerCron, At: time.Date(2026, 9, 3, 9, 0, 0, 0, time.UTC)}}, want: ""},
		{name: "unknown trigger is no gate", schedules: []Schedule{{ID: "x", Trigger: "interval", At: now.Add(time.Hour)}}, want: ""},
		{name: "trigger is exact", schedules: []Schedule{{ID: "x", Trigger: "ONCE", At: now.Add(time.Hour)}}, want: ""},
		{name: "cron skipped, one-shot gates", schedules: []Schedule{
			{ID: "daily", Trigger: TriggerCron, At: now.Add(time.Hour)}, {ID: "s2", Trigger: TriggerOnce, At: now.Add(2 * time.Hour)}},
			want: "one-shot schedule s2 fires at 2026-09-02T16:00:00Z (in 2h0m0s)"},
		{name: "job reported before schedule", jobs: []Job{{ID: "j", Status: "running"}},
			schedules: []Schedule{{ID: "s", Trigger: TriggerOnce, At: now.Add(time.Hour)}}, want: "job j is running"},
		{name: "schedule gates when only service jobs run", jobs: []Job{{ID: "preview-1", Status: "running"}},
			schedules: []Schedule{{ID: "s", Trigger: TriggerOnce, At: now.Add(time.Minute)}}, services: services,
			want: "one-shot schedule s fires at 2026-09-02T14:01:00Z (in 1m0s)"},
		{name: "schedule without id", schedules: []Schedule{{Trigger: TriggerOnce, At: now.Add(time.Minute)}},
			want: "one-shot schedule fires at 2026-09-02T14:01:00Z (in 1m0s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PendingWakeReason(tt.jobs, tt.schedules, now, tt.services); got != tt.want {
				t.Errorf("PendingWakeReason = %q, want %q", got, tt.want)
			}
		})
	}
}
