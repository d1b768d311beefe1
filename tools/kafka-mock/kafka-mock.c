/*
 * kafka-mock: a librdkafka mock cluster as a process, for tests and local runs of the distributed
 * topology (no JVM, no Docker).
 *
 *   kafka-mock [--brokers N] [topic:partitions ...]
 *
 * Prints the bootstrap servers as one line on stdout, then reads commands on stdin, one per line,
 * and answers each with one line, `ok` or `error <reason>`:
 *   down <broker_id>          the broker drops its connections and refuses new ones (no leader change)
 *   up <broker_id>            the broker accepts connections again
 *   topic <name>:<partitions> creates a topic (replication factor 1)
 *   fail <api_key>:<error>    the next request of that API (from any client) is answered with that
 *                             error code, e.g. `fail 14:42`: a SyncGroup answered INVALID_REQUEST
 * Exits cleanly on EOF on stdin, SIGTERM or SIGINT.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#define LINE_MAX_CHARS 512
#define BROKERS_MAX 32
#define PARTITIONS_MAX 1024
#define TOPIC_THREADS_MAX 64

static volatile sig_atomic_t stopping = 0;

static void on_signal(int signo) {
  (void)signo;
  stopping = 1;
}

/* Parses `name:partitions` into name (in place) and partitions; 0 on success. */
static int parse_topic(char *spec, const char **name, int *partitions) {
  char *colon = strrchr(spec, ':');
  if (colon == NULL || colon == spec) return -1;
  *colon = '\0';
  char *end = NULL;
  long count = strtol(colon + 1, &end, 10);
  if (end == colon + 1 || *end != '\0' || count < 1 || count > PARTITIONS_MAX) return -1;
  *name = spec;
  *partitions = (int)count;
  return 0;
}

static int create_topic(rd_kafka_mock_cluster_t *mcluster, char *spec, char *error, size_t error_size) {
  const char *name = NULL;
  int partitions = 0;
  if (parse_topic(spec, &name, &partitions) != 0) {
    snprintf(error, error_size, "expected <name>:<partitions> (1..%d), got '%s'", PARTITIONS_MAX, spec);
    return -1;
  }
  rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(mcluster, name, partitions, 1);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    snprintf(error, error_size, "cannot create topic %s: %s", name, rd_kafka_err2str(err));
    return -1;
  }
  return 0;
}

struct topic_job {
  rd_kafka_mock_cluster_t *mcluster;
  char *spec;
  char error[LINE_MAX_CHARS];
  int status;
};

static void *topic_job_run(void *arg) {
  struct topic_job *job = arg;
  job->status = create_topic(job->mcluster, job->spec, job->error, sizeof job->error);
  return NULL;
}

/*
 * Creates the topics of the command line, up to TOPIC_THREADS_MAX at a time. librdkafka 2.0.2's mock
 * thread sometimes misses the wakeup of an API call and serves it at its next 1 s poll: one call
 * after another, 44 topics took ~10 s; calls in flight together are all served at that same poll.
 */
static int create_topics(rd_kafka_mock_cluster_t *mcluster, char **specs, int count) {
  int status = 0;
  for (int first = 0; first < count; first += TOPIC_THREADS_MAX) {
    int batch = count - first < TOPIC_THREADS_MAX ? count - first : TOPIC_THREADS_MAX;
    struct topic_job jobs[TOPIC_THREADS_MAX];
    pthread_t threads[TOPIC_THREADS_MAX];
    for (int i = 0; i < batch; i++) {
      jobs[i] = (struct topic_job){.mcluster = mcluster, .spec = specs[first + i], .status = 0};
      jobs[i].error[0] = '\0';
      if (pthread_create(&threads[i], NULL, topic_job_run, &jobs[i]) != 0) topic_job_run(&jobs[i]), threads[i] = 0;
    }
    for (int i = 0; i < batch; i++) {
      if (threads[i] != 0) pthread_join(threads[i], NULL);
      if (jobs[i].status != 0) {
        fprintf(stderr, "kafka-mock: %s\n", jobs[i].error);
        status = 2;
      }
    }
  }
  return status;
}

static int parse_broker_id(const char *text, int brokers, int32_t *id) {
  char *end = NULL;
  long value = strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > brokers) return -1;
  *id = (int32_t)value;
  return 0;
}

/* Runs one command line; writes `ok` or `error ...` to stdout. */
static void run_command(rd_kafka_mock_cluster_t *mcluster, int brokers, char *line) {
  char error[LINE_MAX_CHARS] = "";
  char *verb = strtok(line, " \t");
  char *arg = strtok(NULL, " \t");
  char *extra = strtok(NULL, " \t");
  int32_t broker_id = 0;
  if (verb == NULL) {
    snprintf(error, sizeof error, "empty command");
  } else if (arg == NULL || extra != NULL) {
    snprintf(error, sizeof error, "expected one argument after '%s'", verb);
  } else if (strcmp(verb, "down") == 0 || strcmp(verb, "up") == 0) {
    if (parse_broker_id(arg, brokers, &broker_id) != 0) {
      snprintf(error, sizeof error, "broker id must be 1..%d, got '%s'", brokers, arg);
    } else {
      rd_kafka_resp_err_t err = strcmp(verb, "down") == 0 ? rd_kafka_mock_broker_set_down(mcluster, broker_id)
                                                           : rd_kafka_mock_broker_set_up(mcluster, broker_id);
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR) snprintf(error, sizeof error, "%s %d: %s", verb, broker_id, rd_kafka_err2str(err));
    }
  } else if (strcmp(verb, "topic") == 0) {
    create_topic(mcluster, arg, error, sizeof error);
  } else if (strcmp(verb, "fail") == 0) {
    int api_key = -1, code = -1, consumed = 0;
    if (sscanf(arg, "%d:%d%n", &api_key, &code, &consumed) != 2 || arg[consumed] != '\0' || api_key < 0 || api_key > 100 || code < 1 || code > 200) {
      snprintf(error, sizeof error, "expected <api_key>:<error_code>, got '%s'", arg);
    } else {
      rd_kafka_mock_push_request_errors(mcluster, (int16_t)api_key, 1, (rd_kafka_resp_err_t)code);
    }
  } else {
    snprintf(error, sizeof error, "unknown command '%s' (down <id> | up <id> | topic <name>:<partitions> | fail <api_key>:<error>)", verb);
  }
  if (error[0] == '\0') printf("ok\n");
  else printf("error %s\n", error);
  fflush(stdout);
}

int main(int argc, char **argv) {
  int brokers = 1;
  int first_topic = 1;
  for (; first_topic < argc && strncmp(argv[first_topic], "--", 2) == 0; first_topic++) {
    if (strcmp(argv[first_topic], "--brokers") == 0 && first_topic + 1 < argc) {
      brokers = atoi(argv[++first_topic]);
      if (brokers < 1 || brokers > BROKERS_MAX) {
        fprintf(stderr, "kafka-mock: --brokers must be 1..%d\n", BROKERS_MAX);
        return 2;
      }
    } else {
      fprintf(stderr, "usage: kafka-mock [--brokers N] [topic:partitions ...]\n");
      return 2;
    }
  }

  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal; /* no SA_RESTART: a signal interrupts the read on stdin */
  sigaction(SIGTERM, &action, NULL);
  sigaction(SIGINT, &action, NULL);
  signal(SIGPIPE, SIG_IGN);

  /* A plain producer handle hosts the mock cluster; test.mock.num.brokers stays unset (see rdkafka_mock.h). */
  char errstr[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
    fprintf(stderr, "kafka-mock: %s\n", errstr);
    return 1;
  }
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (rk == NULL) {
    fprintf(stderr, "kafka-mock: cannot create the host handle: %s\n", errstr);
    return 1;
  }
  rd_kafka_mock_cluster_t *mcluster = rd_kafka_mock_cluster_new(rk, brokers);
  if (mcluster == NULL) {
    fprintf(stderr, "kafka-mock: cannot create the mock cluster\n");
    rd_kafka_destroy(rk);
    return 1;
  }

  int status = create_topics(mcluster, argv + first_topic, argc - first_topic);

  if (status == 0) {
    printf("%s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
    fflush(stdout);
    char line[LINE_MAX_CHARS];
    while (!stopping) {
      if (fgets(line, sizeof line, stdin) == NULL) {
        if (errno == EINTR && !stopping) {
          clearerr(stdin);
          continue;
        }
        break; /* EOF, or a signal asked us to stop */
      }
      line[strcspn(line, "\r\n")] = '\0';
      run_command(mcluster, brokers, line);
    }
  }

  rd_kafka_mock_cluster_destroy(mcluster);
  rd_kafka_destroy(rk);
  return status;
}
