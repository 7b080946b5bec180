#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
static void spin_cpu(long us) { struct timespec a, b; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a); do { for (volatile int i = 0; i < 20000; i++) ; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b); } while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000L < us); }
int main(void) { for (int i = 0; i < 20; i++) { spin_cpu(3000); usleep(5000); } struct rusage ru; getrusage(RUSAGE_SELF, &ru); printf("cpu_us %ld\n", ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec); return 0; }
