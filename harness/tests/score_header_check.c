/* SPDX-License-Identifier: MIT
 *
 * The C header of `vramlab weights export --c-header` in a C program: the network of
 * docs/score.md evaluated from radeon_bo_score_default_weights[] (compiled with -ffp-contract=off, float
 * arithmetic in the documented order) must give every score of `vramlab weights vectors` for
 * the same weights file, bit for bit. Reads the vectors CSV on stdin; exits 1 on a mismatch.
 * Built and run by tests/train_test.sh for a trained network.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include WEIGHTS_HEADER

static float clamp01(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }

static float s(float x)
{
   float t = clamp01(x);
   return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f);
}

static uint32_t score(const float *x)
{
   const float *w = radeon_bo_score_default_weights;
   float a[9], h[9], z;

   for (int i = 0; i < 9; i++)
      a[i] = s(w[i] * x[i] + w[9 + i]);
   for (int j = 0; j < 9; j++) {
      const float *hw = w + 18 + j * 10;
      z = hw[0] * a[0];
      for (int i = 1; i < 9; i++)
         z = z + hw[i] * a[i];
      h[j] = s(z + hw[9]);
   }
   const float *ow = w + 108;
   z = ow[0] * h[0];
   for (int j = 1; j < 9; j++)
      z = z + ow[j] * h[j];
   float o = s(z + ow[9]);
   if (o > 0.999f)
      o = 0.999f;
   return (uint32_t)((double)o * 4294967296.0);
}

int main(void)
{
   static const float scale[9] = { 1073741824.0f, 10737418240.0f, 1.0f, 2400.0f, 2400.0f,
                                   500.0f, 500.0f, 2400.0f, 500.0f };
   char line[512], name[128];
   unsigned long long v[10];
   unsigned n = 0, bad = 0;

   while (fgets(line, sizeof(line), stdin)) {
      if (line[0] == '#')
         continue;
      if (sscanf(line, "%127[^,],%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu", name,
                 &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) != 11) {
         fprintf(stderr, "line %u: not a vector: %s", n + 1, line);
         return 2;
      }
      /* CSV order: size, vram_size, high_prio, since_read, since_write, since_cpu, reads,
       * writes, cpu_ops; the network's inputs: size, vram, prio, since_read, since_write,
       * reads, writes, since_cpu, cpu_ops (docs/score.md). */
      const unsigned long long in[9] = { v[0], v[1], v[2], v[3], v[4], v[6], v[7], v[5], v[8] };
      float x[9];
      for (int i = 0; i < 9; i++)
         x[i] = clamp01((float)(double)in[i] / scale[i]);
      uint32_t got = score(x);
      if (got != v[9]) {
         fprintf(stderr, "vector %u: C header gives %" PRIu32 ", the simulator %llu\n", n + 1,
                 got, v[9]);
         bad++;
      }
      n++;
   }
   printf("score_header_check: %u vectors, %u mismatches\n", n, bad);
   return bad || !n;
}
