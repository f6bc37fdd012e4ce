<?php

namespace App\EventSubscriber;

use Symfony\Component\EventDispatcher\EventSubscriberInterface;
use Symfony\Component\HttpFoundation\JsonResponse;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\HttpKernel\Event\ExceptionEvent;
use Symfony\Component\HttpKernel\Exception\HttpExceptionInterface;
use Symfony\Component\HttpKernel\KernelEvents;

/**
 * Turns every exception into the interface's Error record {code, message, status}.
 */
class ExceptionSubscriber implements EventSubscriberInterface
{
    public static function getSubscribedEvents(): array
    {
        return [KernelEvents::EXCEPTION => 'onKernelException'];
    }

    public function onKernelException(ExceptionEvent $event): void
    {
        $exception = $event->getThrowable();

        if ($exception instanceof HttpExceptionInterface) {
            $status = $exception->getStatusCode();
            $headers = $exception->getHeaders();
            $message = $exception->getMessage() ?: (Response::$statusTexts[$status] ?? 'Error');
        } else {
            $status = Response::HTTP_INTERNAL_SERVER_ERROR;
            $headers = [];
            $message = 'Internal Server Error';
        }

        $code = strtolower(preg_replace('/\W+/', '_', Response::$statusTexts[$status] ?? 'error'));

        $event->setResponse(new JsonResponse([
            'code' => $code,
            'message' => $message,
            'status' => $status,
        ], $status, $headers));
    }
}
