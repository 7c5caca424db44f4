#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
// usage: v PREFIXFILE TARGETHEX(8) WORKER NWORKERS ; object = "commit N\0" + prefix + nonce(12 hex) + "\n"
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "rb"); static unsigned char buf[1<<16]; size_t n = fread(buf,1,sizeof buf,f); fclose(f);
  unsigned target = strtoul(argv[2], 0, 16); int w = atoi(argv[3]), nw = atoi(argv[4]);
  char head[64]; int hl = sprintf(head, "commit %zu", n + 13) + 1;
  SHA_CTX base; SHA1_Init(&base); SHA1_Update(&base, head, hl); SHA1_Update(&base, buf, n);
  static const char hx[] = "0123456789abcdef"; char nonce[13]; nonce[12] = '\n';
  unsigned char md[20];
  for (unsigned long long i = w; ; i += nw) {
    unsigned long long v = i; for (int k = 11; k >= 0; k--) { nonce[k] = hx[v & 15]; v >>= 4; }
    SHA_CTX c = base; SHA1_Update(&c, nonce, 13); SHA1_Final(md, &c);
    unsigned got = (md[0]<<24)|(md[1]<<16)|(md[2]<<8)|md[3];
    if (got == target) { fwrite(nonce, 1, 12, stdout); printf("\n"); return 0; }
  }
}
