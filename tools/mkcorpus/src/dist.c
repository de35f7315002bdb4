// dist.c: the probability distributions the corpus is drawn from (lognormal,
// truncated Pareto, exponential, discrete power laws). log and exp are our
// own series, built on operations IEEE 754 rounds exactly, because libm's may
// differ in the last bit between versions and machines, and one bit is enough
// to change a size and every byte after it.
#include <math.h>
#include <stdlib.h>

#include "mkcorpus_internal.h"

#define LN2 0.69314718055994530942
#define SQRT2 1.41421356237309504880

double mkc_log(double x) {
  if (!(x > 0))
    return -1e300;
  // Reduce to m in [1/sqrt 2, sqrt 2) by exact halvings and doublings.
  int e = 0;
  while (x >= SQRT2) {
    x *= 0.5;
    e++;
  }
  while (x < SQRT2 / 2) {
    x *= 2.0;
    e--;
  }
  // log m = 2 atanh z with |z| < 0.172; 21 odd terms reach double precision.
  double z = (x - 1.0) / (x + 1.0);
  double z2 = z * z;
  double term = z;
  double sum = 0.0;
  for (int k = 1; k <= 41; k += 2) {
    sum += term / k;
    term *= z2;
  }
  return 2.0 * sum + e * LN2;
}

double mkc_exp(double x) {
  if (x > 700.0)
    x = 700.0;
  if (x < -700.0)
    return 0.0;
  double kf = x / LN2;
  int k = (int)(kf < 0 ? kf - 0.5 : kf + 0.5);
  double r = x - k * LN2; // |r| <= ln2 / 2
  double term = 1.0;
  double sum = 1.0;
  for (int i = 1; i <= 20; i++) {
    term *= r / i;
    sum += term;
  }
  for (; k > 0; k--)
    sum *= 2.0;
  for (; k < 0; k++)
    sum *= 0.5;
  return sum;
}

// Marsaglia's polar method needs no trigonometry; sqrt is exactly rounded.
static double standard_normal(struct mkc_rng *r) {
  for (;;) {
    double u = 2.0 * mkc_rng_unit(r) - 1.0;
    double v = 2.0 * mkc_rng_unit(r) - 1.0;
    double s = u * u + v * v;
    if (s > 0.0 && s < 1.0)
      return u * sqrt(-2.0 * mkc_log(s) / s);
  }
}

double mkc_lognormal(struct mkc_rng *r, double median, double sigma) {
  return median * mkc_exp(sigma * standard_normal(r));
}

double mkc_pareto_truncated(struct mkc_rng *r, double xmin, double alpha, double xmax) {
  // Inverse CDF of the Pareto law conditioned on x < xmax, so that the tail
  // thins out towards the ceiling instead of piling up at it.
  double tail = mkc_exp(alpha * mkc_log(xmin / xmax)); // P(x >= xmax) untruncated
  double u = mkc_rng_unit(r) * (1.0 - tail);
  return xmin * mkc_exp(-mkc_log(1.0 - u) / alpha);
}

double mkc_exponential(struct mkc_rng *r, double mean) {
  return -mean * mkc_log(1.0 - mkc_rng_unit(r));
}

void mkc_cdf_power_law(struct mkc_cdf *t, size_t n, double exponent) {
  t->cum = mkc_xmalloc(n * sizeof *t->cum);
  t->n = n;
  double total = 0.0;
  for (size_t k = 0; k < n; k++) {
    total += mkc_exp(-exponent * mkc_log((double)(k + 1)));
    t->cum[k] = total;
  }
}

size_t mkc_cdf_sample(const struct mkc_cdf *t, struct mkc_rng *r) {
  return mkc_cdf_sample_from(t, r, 0);
}

size_t mkc_cdf_sample_from(const struct mkc_cdf *t, struct mkc_rng *r, size_t first) {
  if (first >= t->n)
    first = t->n - 1;
  double below = first ? t->cum[first - 1] : 0.0;
  double u = below + mkc_rng_unit(r) * (t->cum[t->n - 1] - below);
  size_t lo = first;
  size_t hi = t->n - 1;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->cum[mid] > u)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

void mkc_cdf_cleanup(struct mkc_cdf *t) {
  free(t->cum);
  t->cum = NULL;
  t->n = 0;
}
