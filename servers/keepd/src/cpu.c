// cpu.c: how many shards keepd should run and where. The answer is the
// process's CPU budget, not the host's CPU count: the CPUs it may run on
// (sched_getaffinity intersected with the cgroup cpuset) and the CPU quota
// (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us / cpu.cfs_period_us). The
// budget is exclusive when the process's own cgroup (not the root) holds its
// CPUs exclusively (v2 cpuset.cpus.partition "root" or "isolated", v1
// cpuset.cpu_exclusive) and no quota cuts them short; only then are shards
// pinned one per CPU. On CPUs shared with the rest of the host, or under a
// fractional quota, a pinned shard could not move away from a busy CPU.
#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keepd.h"

int keepd_parse_cpu_list(const char *s, uint64_t set[16]) {
  memset(set, 0, 16 * sizeof set[0]);
  int count = 0;
  const char *p = s;
  while (*p != '\0' && *p != '\n') {
    if (!isdigit((unsigned char)*p))
      return -1;
    char *end;
    long a = strtol(p, &end, 10), b = a;
    p = end;
    if (*p == '-') {
      p++;
      if (!isdigit((unsigned char)*p))
        return -1;
      b = strtol(p, &end, 10);
      p = end;
    }
    if (a < 0 || b < a || b >= 1024)
      return -1;
    for (long i = a; i <= b; i++) {
      if (!(set[i / 64] & (1ull << (i % 64))))
        count++;
      set[i / 64] |= 1ull << (i % 64);
    }
    if (*p == ',')
      p++;
    else if (*p != '\0' && *p != '\n')
      return -1;
  }
  return count;
}

int keepd_parse_cpu_max(const char *s) {
  if (strncmp(s, "max", 3) == 0)
    return 0;
  char *end;
  long long quota = strtoll(s, &end, 10);
  if (end == s || *end != ' ')
    return -1;
  const char *q = end + 1;
  long long period = strtoll(q, &end, 10);
  if (end == q || quota <= 0 || period <= 0)
    return -1;
  return (int)((quota + period - 1) / period);
}

static bool read_line(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return false;
  bool ok = fgets(buf, (int)cap, f) != NULL;
  fclose(f);
  return ok;
}

// cgroup_path finds the process's cgroup for `controller` in
// /proc/self/cgroup ("" for the v2 unified hierarchy).
static bool cgroup_path(const char *controller, char *out, size_t cap) {
  FILE *f = fopen("/proc/self/cgroup", "r");
  if (f == NULL)
    return false;
  char line[512];
  bool found = false;
  while (!found && fgets(line, sizeof line, f) != NULL) {
    char *c1 = strchr(line, ':');
    char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (c2 == NULL)
      continue;
    *c2 = '\0';
    const char *ctrls = c1 + 1;
    bool match = controller[0] == '\0' ? ctrls[0] == '\0' : false;
    for (const char *p = ctrls; !match && *p != '\0';) {
      size_t n = strcspn(p, ",");
      if (n == strlen(controller) && strncmp(p, controller, n) == 0)
        match = true;
      p += n + (p[n] == ',');
    }
    if (match) {
      c2[1 + strcspn(c2 + 1, "\n")] = '\0';
      snprintf(out, cap, "%s", c2 + 1);
      found = true;
    }
  }
  fclose(f);
  return found;
}

void keepd_cpu_budget_read(keepd_cpu_budget *out) {
  memset(out, 0, sizeof *out);
  uint64_t allowed[16] = {0};
  cpu_set_t aff;
  CPU_ZERO(&aff);
  if (sched_getaffinity(0, sizeof aff, &aff) == 0) {
    for (int i = 0; i < 1024 && i < CPU_SETSIZE; i++)
      if (CPU_ISSET(i, &aff))
        allowed[i / 64] |= 1ull << (i % 64);
  } else {
    allowed[0] = 1;
  }
  out->source = "affinity";
  char path[1024], rel[512], line[256];
  uint64_t cpuset[16];
  int quota = 0;
  bool exclusive_set = false;
  if (cgroup_path("", rel, sizeof rel) &&
      (snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpuset.cpus.effective", rel),
       read_line(path, line, sizeof line))) {
    out->source = "cgroup v2";
    if (keepd_parse_cpu_list(line, cpuset) > 0)
      for (int i = 0; i < 16; i++)
        allowed[i] &= cpuset[i];
    snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpuset.cpus.partition", rel);
    exclusive_set = strcmp(rel, "/") != 0 && read_line(path, line, sizeof line) &&
                    (strncmp(line, "root", 4) == 0 || strncmp(line, "isolated", 8) == 0);
    // Quotas nest: the tightest one on the way up to the root applies.
    for (;;) {
      snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.max", rel);
      int q = read_line(path, line, sizeof line) ? keepd_parse_cpu_max(line) : 0;
      if (q > 0 && (quota == 0 || q < quota))
        quota = q;
      char *slash = strrchr(rel, '/');
      if (slash == NULL || rel[0] == '\0')
        break;
      *slash = '\0';
    }
  } else {
    if (cgroup_path("cpuset", rel, sizeof rel) &&
        (snprintf(path, sizeof path, "/sys/fs/cgroup/cpuset%s/cpuset.effective_cpus", rel),
         read_line(path, line, sizeof line))) {
      out->source = "cgroup v1";
      if (keepd_parse_cpu_list(line, cpuset) > 0)
        for (int i = 0; i < 16; i++)
          allowed[i] &= cpuset[i];
      snprintf(path, sizeof path, "/sys/fs/cgroup/cpuset%s/cpuset.cpu_exclusive", rel);
      exclusive_set = strcmp(rel, "/") != 0 && read_line(path, line, sizeof line) && line[0] == '1';
    }
    char qline[64], pline[64];
    if (cgroup_path("cpu", rel, sizeof rel)) {
      char qpath[1024], ppath[1024];
      snprintf(qpath, sizeof qpath, "/sys/fs/cgroup/cpu%s/cpu.cfs_quota_us", rel);
      snprintf(ppath, sizeof ppath, "/sys/fs/cgroup/cpu%s/cpu.cfs_period_us", rel);
      if (read_line(qpath, qline, sizeof qline) && read_line(ppath, pline, sizeof pline)) {
        out->source = "cgroup v1";
        long long q = atoll(qline), p = atoll(pline);
        if (q > 0 && p > 0)
          quota = (int)((q + p - 1) / p);
      }
    }
  }
  unsigned n = 0;
  for (int i = 0; i < 1024; i++)
    if (allowed[i / 64] & (1ull << (i % 64))) {
      if (n < KEEPD_MAX_SHARDS)
        out->cpu_list[n] = i;
      n++;
    }
  if (n == 0)
    n = 1;
  out->cpus = n;
  out->quota_cpus = (unsigned)quota;
  out->budget = quota > 0 && (unsigned)quota < n ? (unsigned)quota : n;
  if (out->budget > KEEPD_MAX_SHARDS)
    out->budget = KEEPD_MAX_SHARDS;
  out->exclusive = exclusive_set && (quota == 0 || (unsigned)quota >= n);
}
